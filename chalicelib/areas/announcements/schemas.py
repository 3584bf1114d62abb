"""Request and read models of announcements (unknown fields are ignored)."""

import re
from datetime import date
from typing import Annotated, Optional

from pydantic import Field, StringConstraints, ValidationInfo, field_validator, model_validator

from chalicelib.core.schemas import CalendarDate, Flag, Flag01, Input, IsoTimestamp, Read, Text, choice

from .models import CATEGORIES

Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
Content = Annotated[str, StringConstraints(min_length=1, max_length=100_000)]
Category = choice(*CATEGORIES)
_TIME = re.compile(r"([01]\d|2[0-3]):[0-5]\d")


def _content(value):
    if isinstance(value, str) and not value.strip():
        raise ValueError("must not be empty")
    return value


# A path on this site: `/` not followed by `/` or `\` (browsers open `//host/...` and `/\host/...` as another
# site). No control character anywhere: browsers drop tabs and line breaks first (`/\t/host` is `//host`).
_PATH = re.compile(r"/(?![/\\])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _url(value):
    if value is None:
        return None
    value = value.strip()
    if value and (_CONTROL.search(value) or not (value.lower().startswith(("https://", "http://"))
                                                 or _PATH.match(value))):
        raise ValueError("must be an http(s) URL or a path on this site (/...)")
    return value or None


class AnnouncementListQuery(Input):
    category: Optional[Category] = None


class AnnouncementCreate(Input):
    NOT_NULL = frozenset({"title", "content", "category"})

    title: Title
    content: Content
    category: Category
    attachment_url: Optional[Text(2000)] = None
    attachment_name: Optional[Text(500)] = None

    _content = field_validator("content")(_content)
    _url = field_validator("attachment_url")(_url)


class AnnouncementUpdate(Input):
    NOT_NULL = frozenset({"title", "content", "category"})

    title: Optional[Title] = None
    content: Optional[Content] = None
    category: Optional[Category] = None
    attachment_url: Optional[Text(2000)] = None
    attachment_name: Optional[Text(500)] = None

    _content = field_validator("content")(_content)
    _url = field_validator("attachment_url")(_url)


def _happens(day: date, hhmm: str) -> bool:
    """Whether the wall-clock time `hhmm` happens on `day` in ORG_TIMEZONE: a time the clocks skip when daylight
    saving starts (02:30 on Sydney's first Sunday of October) does not; a repeated one (when it ends) does."""
    from datetime import datetime, time, timezone

    from chalicelib.core.timeutil import org_zone

    hour, minute = (int(part) for part in hhmm.split(":"))
    wall = datetime.combine(day, time(hour, minute))
    try:
        there = wall.replace(tzinfo=org_zone()).astimezone(timezone.utc).astimezone(org_zone())
    except OverflowError:  # 9999-12-31 late in the day west of UTC: no daylight saving that far out
        return True
    return there.replace(tzinfo=None) == wall


class CalendarChannel(Input):
    """The calendar channel: an all-day event on `date`, or a timed one from start_time to end_time (HH:MM,
    in ORG_TIMEZONE) when both are given."""
    NOT_NULL = frozenset({"date"})

    date: CalendarDate
    start_time: Optional[Text(5)] = None
    end_time: Optional[Text(5)] = Field(None, validate_default=True)  # checked left out too: start_time needs it

    # Each time is checked in its own validator, so a 400 names it (`calendar.end_time`), as the core names a nested
    # field; a model validator named the whole `calendar` (session 32, audit "error bodies that name the wrong
    # field"). The fields are validated in their order: a validator reads the ones before it in `info.data`, where a
    # field that failed is absent (its own detail says why, and the checks that need it are skipped).
    @field_validator("start_time", "end_time")
    @classmethod
    def _time(cls, value, info: ValidationInfo):
        if value is None:
            return value
        if not _TIME.fullmatch(value):
            raise ValueError("must be a time HH:MM")
        day = info.data.get("date")
        if day is not None and not _happens(day, value):
            raise ValueError(f"{info.field_name} {value} does not happen on {day.isoformat()} in the organisation's "
                             "time zone (the clocks skip it)")
        return value

    @field_validator("end_time")
    @classmethod
    def _after_start(cls, end, info: ValidationInfo):
        if "start_time" not in info.data:  # start_time failed: its own detail
            return end
        start = info.data["start_time"]
        if (start is None) != (end is None):
            raise ValueError("start_time and end_time go together (omit both for an all-day event)")
        if start and end <= start:
            raise ValueError("end_time must be after start_time")
        return end

    @model_validator(mode="after")
    def _all_day(self):  # date is required and never null (NOT_NULL); the times passed their validators
        if self.start_time is None and self.date == date.max:  # its exclusive end date would be year 10000
            raise ValueError("an all-day event must be before 9999-12-31 (give start_time and end_time)")
        return self


class DistributeRequest(Input):
    chat: Optional[Flag] = None
    calendar: Optional[CalendarChannel] = None
    email: Optional[Flag] = None


# --- read models ----------------------------------------------------------------------------------

class AnnouncementRead(Read):
    id: str
    title: str
    content: str
    category: Category
    attachment_url: str | None
    attachment_name: str | None
    author_id: str | None
    author_name: str | None
    author_picture: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    is_read: Flag01


class ReadReceiptRead(Read):
    user_id: str
    user_name: str | None
    read_at: IsoTimestamp


class AnnouncementDetail(Read):
    """`read_receipts` is present for head and executive only."""
    announcement: AnnouncementRead
    read_receipts: Optional[list[ReadReceiptRead]] = None


class UnreadCountRead(Read):
    unread_count: int


class DistributionRead(Read):
    id: str
    announcement_id: str
    channel: choice("chat", "calendar", "email")
    status: choice("sent", "failed")
    external_id: str | None
    error: str | None
    sent_by: str | None
    sent_by_name: str | None
    sent_at: IsoTimestamp


class ChannelResultRead(Read):
    """`{status: sent, external_id}` or `{status: failed, error}`."""
    status: choice("sent", "failed")
    external_id: Optional[str] = None
    error: Optional[str] = None


class DistributeResultsRead(Read):
    results: dict[choice("chat", "calendar", "email"), ChannelResultRead]
