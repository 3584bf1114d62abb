"""Request and read models of the notifications area (unknown fields are ignored)."""
from __future__ import annotations

import base64
import binascii
import re
from typing import Annotated, Literal, Optional

from pydantic import Field, StringConstraints, field_validator

from chalicelib.core.schemas import Email, Flag, Flag01, Input, IsoDate, IsoTimestamp, PageQuery, Read, choice

TypeId = Annotated[str, StringConstraints(min_length=1, max_length=100)]


class NotificationListQuery(PageQuery):
    """The spec's own page: `limit` default 50, at most 100 (not the general 500)."""

    filter: choice("all", "unread", "archived") = "all"
    limit: int = Field(50, ge=1, le=100)


class PreferenceEntry(Input):
    notification_type: TypeId
    channel_in_app: Flag | None = None
    channel_email: Flag | None = None
    channel_chat: Flag | None = None
    channel_push: Flag | None = None


class PreferencesUpdate(Input):
    preferences: list[PreferenceEntry] = Field(max_length=500)


BASE64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")


def _b64url_bytes(value: str) -> bytes:
    """The bytes of a base64url text (padding optional); anything else (standard base64's '+' and '/', spaces,
    other characters, which the decoder would skip) is refused."""
    if not BASE64URL.fullmatch(value):
        raise ValueError("must be base64url")
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ValueError("must be base64url") from exc


class PushKeys(Input):
    p256dh: str = Field(min_length=1, max_length=200)
    auth: str = Field(min_length=1, max_length=100)

    @field_validator("p256dh")
    @classmethod
    def _p256dh(cls, value: str) -> str:
        raw = _b64url_bytes(value)
        if len(raw) != 65 or raw[0] != 4:
            raise ValueError("must be a base64url uncompressed P-256 public key (65 bytes)")
        return value

    @field_validator("auth")
    @classmethod
    def _auth(cls, value: str) -> str:
        if len(_b64url_bytes(value)) != 16:
            raise ValueError("must be a base64url 16-byte authentication secret")
        return value


class PushSubscribe(Input):
    endpoint: str = Field(min_length=9, max_length=1000)
    keys: PushKeys
    user_agent: str | None = Field(None, max_length=500)

    @field_validator("endpoint")
    @classmethod
    def _endpoint(cls, value: str) -> str:
        from chalicelib.core.netguard import UnsafeURL, check_public_https_url

        if not value.isascii():  # a URL (RFC 3986); 1000 characters then fit the endpoint's unique index
            raise ValueError("must be an ASCII URL (percent-encode other characters)")
        try:
            return check_public_https_url(value)
        except UnsafeURL as exc:
            raise ValueError(str(exc)) from exc


class PushUnsubscribe(Input):
    endpoint: str = Field(min_length=1, max_length=1000)


class SquadConfigEntry(Input):
    notification_type: TypeId
    chat_channel_id: str | None = Field(None, max_length=200)
    email_group: Optional[Email] = None  # one address (a group's): "a@x, b@y" was kept, its second one dropped
    enabled: Flag = True

    @field_validator("email_group", mode="before")
    @classmethod
    def _email(cls, value):
        """Blank is none; anything else one e-mail address (core Email), session 28."""
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("chat_channel_id")
    @classmethod
    def _channel(cls, value: str | None) -> str | None:
        return (value.strip() or None) if value is not None else None


class SquadConfigUpdate(Input):
    config: list[SquadConfigEntry] = Field(max_length=500)


class UsageQuery(Input):
    days: int = Field(7, ge=1, le=365)


# --- read models ----------------------------------------------------------------------------------

class SuccessResponse(Read):
    """The spec's acknowledgement of the notifications area: `{ success: true }`."""
    success: Literal[True]


class NotificationRead(Read):
    id: str
    user_id: str
    type: str
    title: str
    body: str | None
    icon: str | None
    resource_type: str | None
    resource_id: str | None
    action_url: str | None
    actor_id: str | None
    actor_name: str | None
    actor_picture: str | None
    is_read: Flag01
    read_at: IsoTimestamp | None
    archived: Flag01
    archived_at: IsoTimestamp | None
    created_at: IsoTimestamp


class UnreadCount(Read):
    unread_count: int


class PreferenceRead(Read):
    notification_type: str
    category: str
    label: str
    description: str
    channel_in_app: Flag01
    channel_email: Flag01
    channel_chat: Flag01
    channel_push: Flag01
    is_customized: bool


class DefaultChannels(Read):
    in_app: Flag01
    email: Flag01
    chat: Flag01
    push: Flag01


class NotificationTypeRead(Read):
    id: str
    category: str
    label: str
    description: str
    default_channels: DefaultChannels


class PushPublicKey(Read):
    vapidPublicKey: str  # noqa: N815 - the spec's key


class PushSubscriptionRead(Read):
    id: str
    endpoint: str
    user_agent: str | None
    created_at: IsoTimestamp
    last_used_at: IsoTimestamp | None


class SquadConfigRead(Read):
    notification_type: str
    category: str
    label: str
    chat_channel_id: str | None
    email_group: str | None
    enabled: Flag01


class SquadConfigUpdated(Read):
    success: Literal[True]
    updated: int


class UsageSummary(Read):
    days: int
    total_sent: int
    total_read: int
    unique_recipients: int
    total_deliveries: int
    read_rate: float


class TypeCount(Read):
    type: str
    label: str
    category: str
    count: int
    read_count: int


class UsageByType(Read):
    days: int
    types: list[TypeCount]


class DayCount(Read):
    date: IsoDate
    sent: int
    read: int


class UsageDailyTrend(Read):
    days: int
    trend: list[DayCount]


class ChannelCount(Read):
    channel: str
    total: int
    pending: int
    sent: int
    failed: int
    skipped: int


class UsageChannels(Read):
    days: int
    channels: list[ChannelCount]


class TypeReadRate(Read):
    type: str
    label: str
    sent: int
    read: int
    read_rate: float


class UsageReadRates(Read):
    days: int
    read_rates: list[TypeReadRate]
