"""Request and read models of the calendar (unknown fields are ignored)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Annotated, Optional

from pydantic import ConfigDict, Field, StringConstraints, ValidationInfo, field_validator, model_validator

from chalicelib.core.schemas import (CalendarDate, Flag, Flag01, Id, Input, IsoDate, IsoTimestamp, Name, Read, Text,
                                     Timestamp, choice, comma_values)

from .models import CULTURE_STATUSES, VIEWS

CalendarId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=320)]
MAX_RANGE_DAYS = 400
MAX_CALENDAR_IDS = 10  # the calendars one events list reads
FIRST_YEAR, LAST_YEAR = 1900, 2200  # an events range lies within these years (the synthetic events' dates)
# ... in some time zone: from the first moment of 1900 in the zone furthest ahead (UTC+14) to the end of 2200
# (exclusive, as timeMax) in the zone furthest behind (UTC-12); the synthetic events' days (ORG_TIMEZONE) may
# then be 31 December 1899 or 1 January 2201, which they compute as any other
FIRST_INSTANT = datetime(FIRST_YEAR, 1, 1, tzinfo=timezone(timedelta(hours=14)))
LAST_INSTANT = datetime(LAST_YEAR + 1, 1, 1, tzinfo=timezone(timedelta(hours=-12)))


def _email(value):
    """An attendee's e-mail (never None: required, and NOT_NULL)."""
    value = value.strip()
    if "@" not in value or value.startswith("@") or value.endswith("@") or " " in value:
        raise ValueError("must be an e-mail address")
    return value


class EventTime(Input):
    """Google's event time: `dateTime` (RFC 3339) or `date` (all-day), with an optional IANA `timeZone`."""
    dateTime: Optional[Text(40)] = None  # noqa: N815 - the provider's field names
    date: CalendarDate = None
    timeZone: Optional[Text(100)] = None  # noqa: N815

    @field_validator("dateTime")
    @classmethod
    def _datetime(cls, value):
        if value is None:
            return None
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValueError("must be an ISO 8601 date and time") from exc
        if moment.tzinfo is not None:
            try:
                moment.astimezone(timezone.utc)
            except (OverflowError, ValueError) as exc:  # 0001-01-01T00:00:00+14:00: before year 1 in UTC
                raise ValueError("must be a date and time between years 1 and 9999 in UTC") from exc
        return value

    @field_validator("timeZone")
    @classmethod
    def _zone(cls, value):
        if value is None:
            return None
        from zoneinfo import ZoneInfo

        try:
            ZoneInfo(value)
        except Exception as exc:  # noqa: BLE001 - any unreadable zone name is a 400
            raise ValueError("must be an IANA time zone") from exc
        return value

    @model_validator(mode="after")
    def _one(self):
        if (self.dateTime is None) == (self.date is None):
            raise ValueError("give either dateTime or date")
        return self

    def provider(self) -> dict:
        """The time as Google takes it. A dateTime without an offset is read in its `timeZone`, else in
        ORG_TIMEZONE, which is then sent: Google refuses a time with neither ("Missing time zone definition")."""
        out = {"dateTime": self.dateTime} if self.dateTime else {"date": self.date.isoformat()}
        if self.timeZone:
            out["timeZone"] = self.timeZone
        elif self.dateTime and datetime.fromisoformat(self.dateTime.replace("Z", "+00:00")).tzinfo is None:
            from chalicelib.core.settings import get_settings

            out["timeZone"] = get_settings().org_timezone
        return out


class Attendee(Input):
    NOT_NULL = frozenset({"email"})

    email: Text(320)
    displayName: Optional[Text(200)] = None  # noqa: N815

    _email = field_validator("email")(_email)


class EventUpdate(Input):
    summary: Optional[Text(1000)] = None
    description: Optional[Text(20000)] = None
    location: Optional[Text(1000)] = None
    start: Optional[EventTime] = None
    end: Optional[EventTime] = None
    attendees: Optional[list[Attendee]] = Field(None, max_length=200)

    @field_validator("attendees")
    @classmethod
    def _one_entry_an_address(cls, value):
        """An address sent twice (case and surrounding spaces aside) is one guest, its first entry (session 32):
        the provider folds an address's case, so both named one guest, listed twice with an answer each."""
        if value is None:
            return value
        seen: set[str] = set()
        kept = []
        for attendee in value:
            if attendee.email.lower() not in seen:
                seen.add(attendee.email.lower())
                kept.append(attendee)
        return kept

    def provider(self) -> dict:
        """The provider's fields for the values sent."""
        out = {}
        for name, value in self.changes().items():
            if name in ("start", "end"):
                out[name] = value.provider() if value is not None else None
            elif name == "attendees":
                out[name] = [{k: v for k, v in a.model_dump().items() if v is not None} for a in value or []]
            else:
                out[name] = value
        return out


class EventCreate(EventUpdate):
    NOT_NULL = frozenset({"calendarId", "start", "end"})

    calendarId: CalendarId  # noqa: N815
    start: EventTime
    end: EventTime

    def provider(self) -> dict:
        out = super().provider()
        out.pop("calendarId", None)
        out["start"], out["end"] = self.start.provider(), self.end.provider()
        return out


class EventPatch(Input):
    NOT_NULL = frozenset({"start", "end"})

    start: Optional[EventTime] = None
    end: Optional[EventTime] = None

    @model_validator(mode="after")
    def _some(self):
        if self.start is None and self.end is None:
            raise ValueError("give start, end or both")
        return self

    def provider(self) -> dict:
        return {name: getattr(self, name).provider() for name in ("start", "end") if getattr(self, name) is not None}


class RespondRequest(Input):
    NOT_NULL = frozenset({"status"})

    status: choice("accepted", "declined", "tentative")


class EventsQuery(Input):
    NOT_NULL = frozenset({"timeMin", "timeMax"})

    timeMin: Timestamp  # noqa: N815
    timeMax: Timestamp  # noqa: N815
    calendarIds: Optional[Text(2000)] = None  # noqa: N815

    @field_validator("timeMin", "timeMax", mode="wrap")
    @classmethod
    def _org_wall_time(cls, value, handler):
        """A time without an offset is a wall time of ORG_TIMEZONE, as an event's `dateTime` without one is (session
        18); the core's Timestamp reads it as UTC, so "the 11th" asked without offsets was 11:00 to 11:00 in Sydney
        (session 28). One with an offset (or `Z`) is that instant."""
        moment = handler(value)  # the core's Timestamp: validated, a naive time taken as UTC
        if moment is None or not isinstance(value, str):
            return moment
        try:
            naive = datetime.fromisoformat(value.strip().replace("Z", "+00:00")).tzinfo is None
        except ValueError:  # a form only pydantic reads: as the core read it
            naive = False
        if not naive:
            return moment
        from chalicelib.core.timeutil import org_zone

        try:
            return moment.replace(tzinfo=org_zone()).astimezone(timezone.utc)
        except (OverflowError, ValueError) as exc:  # 0001-01-01T00:00:00 east of UTC: before year 1 in UTC
            raise ValueError("must be a timestamp between years 1 and 9999 in UTC") from exc

    @field_validator("calendarIds", mode="before")
    @classmethod
    def _calendar_ids(cls, value):
        """Kept as `a,b` (blanks dropped, a repeated id once; None when it names none). More than MAX_CALENDAR_IDS
        distinct ids is a 400 naming calendarIds, as core.schemas.CommaList's filters: never cut silently."""
        if value is None or not isinstance(value, str):
            return value
        ids = list(dict.fromkeys(comma_values(value)))
        if len(ids) > MAX_CALENDAR_IDS:
            raise ValueError(f"must be at most {MAX_CALENDAR_IDS} comma-separated values")
        return ",".join(ids) or None

    @field_validator("timeMin", "timeMax")
    @classmethod
    def _range(cls, value, info: ValidationInfo):
        """Each bound a 400 naming the query parameter (session 32: a model validator's detail named `body`, for
        two parameters the client sent by name): timeMin from the first year on, timeMax up to the last one, after
        timeMin (declared, so validated, first) and at most MAX_RANGE_DAYS after it. Defined after `_org_wall_time`,
        so it checks the instant that one answers. Both are required and never null (NOT_NULL): a missing one is
        pydantic's "Field required"."""
        if value is None:
            return value
        if info.field_name == "timeMin":
            if value < FIRST_INSTANT:
                raise ValueError(f"timeMin and timeMax must lie between the years {FIRST_YEAR} and {LAST_YEAR}")
            return value
        if value > LAST_INSTANT:
            raise ValueError(f"timeMin and timeMax must lie between the years {FIRST_YEAR} and {LAST_YEAR}")
        start = info.data.get("timeMin")
        if start is None:  # timeMin is missing or invalid: its own detail says so
            return value
        if value <= start:
            raise ValueError("timeMax must be after timeMin")
        if value - start > timedelta(days=MAX_RANGE_DAYS):
            raise ValueError(f"the range may span at most {MAX_RANGE_DAYS} days")
        return value

    def calendar_ids(self) -> list[str]:
        return comma_values(self.calendarIds) or ["primary"]


class PlacesQuery(Input):
    NOT_NULL = frozenset({"q"})

    q: Annotated[str, StringConstraints(strip_whitespace=True, min_length=2, max_length=200)]
    tz: Optional[Text(100)] = None


class SettingsUpdate(Input):
    NOT_NULL = frozenset({"default_view", "show_birthdays", "show_anniversaries", "show_leave", "show_public_holidays",
                          "show_new_starters", "show_events", "show_weekends"})

    default_view: Optional[choice(*VIEWS)] = None
    visible_calendar_ids: Optional[list[CalendarId]] = Field(None, max_length=50)
    show_birthdays: Optional[Flag] = None
    show_anniversaries: Optional[Flag] = None
    show_leave: Optional[Flag] = None
    show_public_holidays: Optional[Flag] = None
    show_new_starters: Optional[Flag] = None
    show_events: Optional[Flag] = None
    show_weekends: Optional[Flag] = None
    viewed_person_ids: Optional[list[Id]] = Field(None, max_length=200)


class HolidayListQuery(Input):
    year: Optional[int] = Field(None, ge=1900, le=2200)


class HolidayCreate(Input):
    NOT_NULL = frozenset({"date", "name"})

    date: CalendarDate
    name: Name
    region: Optional[Text(100)] = None


class HolidayUpdate(Input):
    NOT_NULL = frozenset({"date", "name"})

    date: CalendarDate = None
    name: Optional[Name] = None
    region: Optional[Text(100)] = None


class CultureEventListQuery(Input):
    year: Optional[int] = Field(None, ge=1900, le=2200)
    status: Optional[choice(*CULTURE_STATUSES)] = None


class CultureEventCreate(Input):
    NOT_NULL = frozenset({"title", "date", "status"})

    title: Name
    description: Optional[Text(20000)] = None
    date: CalendarDate
    end_date: CalendarDate = None
    location: Optional[Text(500)] = None
    status: choice(*CULTURE_STATUSES) = "planned"

    @field_validator("end_date")
    @classmethod
    def _dates(cls, end, info: ValidationInfo):
        """A 400 naming end_date (session 32: a model validator's detail named `body`); date is declared, so
        validated, first, and is required and never null (NOT_NULL): absent from `info.data` only when invalid."""
        start = info.data.get("date")
        if end is not None and start is not None and end < start:
            raise ValueError("end_date must not be before date")
        return end


class CultureEventUpdate(Input):
    NOT_NULL = frozenset({"title", "date", "status"})

    title: Optional[Name] = None
    description: Optional[Text(20000)] = None
    date: CalendarDate = None
    end_date: CalendarDate = None
    location: Optional[Text(500)] = None
    status: Optional[choice(*CULTURE_STATUSES)] = None


# --- read models ----------------------------------------------------------------------------------

class CalendarRead(Read):
    id: str
    label: str


class CalendarsRead(Read):
    calendars: list[CalendarRead]


class CalendarEventRead(Read):
    """An event in the calendar provider's shape (Google's other fields pass through); synthetic events add
    `type`, `color` and `synthetic: true`."""
    model_config = ConfigDict(extra="allow", defer_build=True)

    id: str
    summary: Optional[str] = None
    description: Optional[str] = None
    location: Optional[str] = None
    start: Optional[dict] = None
    end: Optional[dict] = None
    attendees: Optional[list[dict]] = None
    status: Optional[str] = None
    htmlLink: Optional[str] = None  # noqa: N815
    type: Optional[str] = None
    color: Optional[str] = None
    synthetic: Optional[bool] = None


class PlaceRead(Read):
    id: str
    label: str


class PlacesRead(Read):
    results: list[PlaceRead]


class SettingsRead(Read):
    default_view: choice(*VIEWS)
    visible_calendar_ids: str | None
    show_birthdays: Flag01
    show_anniversaries: Flag01
    show_leave: Flag01
    show_public_holidays: Flag01
    show_new_starters: Flag01
    show_events: Flag01
    show_weekends: Flag01
    viewed_person_ids: str | None


class SettingsBody(Read):
    settings: SettingsRead


class HolidayRead(Read):
    id: str
    date: IsoDate
    name: str
    region: str | None
    created_at: IsoTimestamp


class CultureEventRead(Read):
    id: str
    title: str
    description: str | None
    date: IsoDate
    end_date: IsoDate | None
    location: str | None
    status: choice(*CULTURE_STATUSES)
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
