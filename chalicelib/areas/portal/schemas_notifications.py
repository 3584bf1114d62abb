"""Request and read models of the portal user's notifications and delivery preferences."""

from pydantic import Field

from chalicelib.core.schemas import Flag, Flag01, Input, IsoTimestamp, Read, choice

from .schemas import Short


# ---------------------------------------------------------------- inputs

class PortalNotificationListQuery(Input):
    filter: choice("all", "unread", "archived") = "all"
    limit: int = Field(50, ge=1, le=100)
    offset: int = Field(0, ge=0, le=100_000_000)


class PortalPreferenceEntry(Input):
    """One type's channels; a channel left out (or null) keeps its effective value (session 28)."""
    notification_type: Short
    channel_in_app: Flag | None = None
    channel_email: Flag | None = None


class PortalPreferencesUpdate(Input):
    preferences: list[PortalPreferenceEntry] = Field(max_length=50)


# ---------------------------------------------------------------- read models

class PortalNotificationRead(Read):
    id: str
    type: str
    title: str
    body: str | None
    resource_type: str | None
    resource_id: str | None
    action_url: str | None
    is_read: Flag01
    read_at: IsoTimestamp | None
    archived: Flag01
    archived_at: IsoTimestamp | None
    created_at: IsoTimestamp


class NotificationsBody(Read):
    notifications: list[PortalNotificationRead]
    limit: int
    offset: int


class PortalUnreadCount(Read):
    unread_count: int


class PortalPreferenceRead(Read):
    notification_type: str
    label: str
    description: str
    channel_in_app: Flag01
    channel_email: Flag01
    is_customized: bool
