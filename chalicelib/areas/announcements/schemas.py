"""Request and read models of announcements (unknown fields are ignored)."""

import re
from datetime import date
from typing import Annotated, Optional

from pydantic import StringConstraints, field_validator, model_validator

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
    end_time: Optional[Text(5)] = None

    @field_validator("start_time", "end_time")
    @classmethod
    def _time(cls, value):
        if value is not None and not _TIME.fullmatch(value):
            raise ValueError("must be a time HH:MM")
        return value

    @model_validator(mode="after")
    def _both(self):  # date is required and never null (NOT_NULL)
        if (self.start_time is None) != (self.end_time is None):
            raise ValueError("start_time and end_time go together (omit both for an all-day event)")
        if self.start_time and self.end_time <= self.start_time:
            raise ValueError("end_time must be after start_time")
        for field in ("start_time", "end_time"):
            if getattr(self, field) and not _happens(self.date, getattr(self, field)):
                raise ValueError(f"{field} {getattr(self, field)} does not happen on {self.date.isoformat()} in the "
                                 "organisation's time zone (the clocks skip it)")
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
