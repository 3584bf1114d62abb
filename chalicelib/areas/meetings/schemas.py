"""Request and read models of meetings (unknown fields are ignored)."""
from __future__ import annotations

from typing import Annotated, Optional, Union

from pydantic import Field, ValidationError, WrapValidator

from chalicelib.core.schemas import CalendarDate, Id, Input, IsoTimestamp, QueryFlag, Read, Search, Timestamp, choice
from chalicelib.providers.ai.base import MEETING_CATEGORIES

from .models import ACTION_STATUSES, ENTITY_TYPES

PAGE_SIZE, PAGE_MAX = 20, 50  # document 3, Limits: meetings page
Category = choice(*MEETING_CATEGORIES)
EntityType = choice(*ENTITY_TYPES)
ActionStatus = choice(*ACTION_STATUSES)


def _one_error(value, handler):
    """A value neither branch reads is one problem of the parameter itself: pydantic named each union branch
    (`date_from.function-before[_calendar_date(), nullable[date]]`), a field no client can match (session 30)."""
    try:
        return handler(value)
    except ValidationError:
        raise ValueError("must be a date (YYYY-MM-DD) or an ISO 8601 timestamp (YYYY-MM-DDTHH:MM:SSZ)") from None


# A date filter: a `YYYY-MM-DD` day (the whole day in ORG_TIMEZONE) or an exact ISO 8601 timestamp.
DateOrTimestamp = Annotated[Union[CalendarDate, Timestamp], Field(union_mode="left_to_right"),
                            WrapValidator(_one_error)]


class MeetingListQuery(Input):
    page: int = Field(1, ge=1, le=1_000_000)
    per_page: int = Field(PAGE_SIZE, ge=1, le=PAGE_MAX)
    category: Optional[Category] = None
    entity_type: Optional[EntityType] = None
    entity_id: Optional[Id] = None
    attendee_user_id: Optional[Id] = None
    unmatched: QueryFlag = None
    date_from: DateOrTimestamp = None
    date_to: DateOrTimestamp = None
    search: Optional[Search] = None

    @property
    def limit(self) -> int:
        """The page as core.query.record_page reads it: `limit` rows from `offset`."""
        return self.per_page

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page


class MeetingMatch(Input):
    NOT_NULL = frozenset({"entity_type", "entity_id"})

    entity_type: EntityType
    entity_id: Id


class ActionItemStatusUpdate(Input):
    NOT_NULL = frozenset({"status"})

    status: ActionStatus


# --- read models ----------------------------------------------------------------------------------

class MeetingAttendeeRead(Read):
    email: str
    name: str | None
    user_id: str | None
    user_name: str | None
    user_picture: str | None


class MeetingActionItemRead(Read):
    id: str
    text: str
    status: ActionStatus
    assignee_id: str | None
    assignee_name: str | None
    source: str


class MeetingRead(Read):
    id: str
    title: str
    summary: str | None
    category: Category | None
    meeting_date: IsoTimestamp | None
    duration_minutes: float | None
    organizer_email: str | None
    entity_type: EntityType | None
    entity_id: str | None
    analysed_at: IsoTimestamp | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    attendees: list[MeetingAttendeeRead]
    action_items: list[MeetingActionItemRead]


class MeetingMatchRead(Read):
    entity_type: EntityType
    entity_id: str
    entity_name: str | None


class MeetingDetailRead(MeetingRead):
    """A meeting with its match info (the matched entity's name), or match null when unmatched."""
    match: MeetingMatchRead | None


class MeetingPage(Read):
    meetings: list[MeetingRead]
    total: int
    page: int
    per_page: int


class SentenceRead(Read):
    speaker_name: str | None
    text: str
    start_time: float | None
    end_time: float | None


class TranscriptRead(Read):
    meeting_id: str
    sentences: list[SentenceRead]


class MeetingStatsRead(Read):
    unmatched_count: int


class MeetNotesStatusRead(Read):
    connected: bool
    last_synced_at: IsoTimestamp | None
    sync_interval_minutes: int
    sync_enabled: bool
    total_notes: int
    unmatched_count: int
