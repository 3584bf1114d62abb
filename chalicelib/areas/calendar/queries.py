"""The calendar area's leaf module: load-or-404 helpers, record builders and the synthetic events.

Public holidays and culture events are organisation-wide (every calendar holder sees them); settings and
invitations are the caller's own.
"""
from __future__ import annotations

import json
from datetime import date, datetime, timedelta

from sqlalchemy import and_, or_, select

from chalicelib.core.models import User
from chalicelib.core.query import LIST_LIMIT, visible_row
from chalicelib.core.serialize import row_dict

from .models import SHOW_FLAGS, CalendarSettings, CultureEvent, PublicHoliday

HOLIDAY_FIELDS = ("id", "date", "name", "region", "created_at")
CULTURE_FIELDS = ("id", "title", "description", "date", "end_date", "location", "status", "created_by", "created_at",
                  "updated_at")
DEFAULTS = {"default_view": "month", "visible_calendar_ids": None, **{flag: True for flag in SHOW_FLAGS},
            "show_weekends": False, "viewed_person_ids": None}
COLOURS = {"birthday": "banana", "anniversary": "sage", "leave": "peacock", "public_holiday": "tomato",
           "new_starter": "basil", "culture_event": "grape"}


def event_start(event: dict) -> datetime | date | None:
    """When a provider event starts, the one reading of it in the area (session 26): a `dateTime` with an offset
    is that instant; one without an offset is a wall time in the event's `timeZone`, else (none, or a name that
    cannot be read) in ORG_TIMEZONE, as Google reads it; an all-day event is its `date`; None when the start cannot
    be read. The event list's order (service._start_key) and the invitation notice's time (jobs._when) both read
    it here: the notice read a time without an offset in the machine's zone (UTC on Lambda), 11 hours late in
    Sydney, while the list read it right."""
    start = event.get("start") or {}
    try:
        if start.get("dateTime"):
            moment = datetime.fromisoformat(str(start["dateTime"]).replace("Z", "+00:00"))
            return moment if moment.tzinfo is not None else moment.replace(tzinfo=_zone(start.get("timeZone")))
        if start.get("date"):
            return date.fromisoformat(str(start["date"]))
    except (TypeError, ValueError):
        pass
    return None


def invite_key(event: dict) -> str:
    """The invitation an event is (`calendar_invites.event_id`): the series of a recurring event's instance (its
    `recurringEventId`: a list with singleEvents=true answers an instance a week, each with its own id), else the
    event's own id (session 28)."""
    return str(event.get("recurringEventId") or event.get("id") or "")


def _zone(name):
    """The zone `name`, else (none, or unreadable) ORG_TIMEZONE."""
    from zoneinfo import ZoneInfo

    from chalicelib.core.timeutil import org_zone

    try:
        return ZoneInfo(str(name)) if name else org_zone()
    except Exception:  # noqa: BLE001 - an unreadable zone name: the organisation's
        return org_zone()


def visible(principal):
    """Public holidays and culture events: every calendar holder sees all (None)."""
    return None


def load_holiday(ctx, holiday_id: str) -> PublicHoliday:
    return visible_row(ctx.db, PublicHoliday, holiday_id, visible(ctx.principal), "Public holiday")


def load_culture_event(ctx, event_id: str) -> CultureEvent:
    return visible_row(ctx.db, CultureEvent, event_id, visible(ctx.principal), "Culture event")


def holiday_record(row: PublicHoliday) -> dict:
    return row_dict(row, HOLIDAY_FIELDS)


def culture_record(row: CultureEvent) -> dict:
    return row_dict(row, CULTURE_FIELDS)


def settings_values(db, user_id: str) -> dict:
    """The caller's settings as stored, or the defaults of document 3 (one statement)."""
    row = db.get(CalendarSettings, user_id)
    if row is None:
        return dict(DEFAULTS)
    return {key: getattr(row, key) for key in DEFAULTS}


def settings_record(values: dict) -> dict:
    return {key: (1 if value else 0) if key in SHOW_FLAGS or key == "show_weekends" else value
            for key, value in values.items()}


# ---------------------------------------------------------------- synthetic events

def _all_day(event_id: str, kind: str, summary: str, day: date, last: date | None = None, **extra) -> dict:
    last = last or day
    end = last + timedelta(days=1) if last < date.max else last  # exclusive, as Google's; none after 9999-12-31
    return {"id": event_id, "summary": summary, "description": extra.pop("description", None),
            "location": extra.pop("location", None), "start": {"date": day.isoformat()},
            "end": {"date": end.isoformat()}, "attendees": [], "status": "confirmed",
            "htmlLink": None, "type": kind, "color": COLOURS[kind], "synthetic": True, **extra}


def _on(year: int, month: int, day: int) -> date:
    """The day in `year`; 29 February falls on the 28th in a common year."""
    try:
        return date(year, month, day)
    except ValueError:
        return date(year, month, day - 1)


def synthetic_events(db, settings: dict, first: date, last: date) -> list[dict]:
    """Birthdays, work anniversaries, new starters, approved leave (the leave area), public holidays and
    culture events (confirmed or planned) between `first` and `last` (inclusive), each kind when its setting
    shows it: at most four statements whatever the number of people and records."""
    events: list[dict] = []
    people = settings["show_birthdays"] or settings["show_anniversaries"] or settings["show_new_starters"]
    if people:
        # A person's birthdays and anniversaries fall on or before their end_date (none: always); one who left
        # before the range (account still active) has none in it (session 24). A birthday falls after the year of
        # birth and on or after the start_date when set (session 28: a hire's birthday was the company's event before
        # they joined, and one was shown for years before the person was born).
        rows = db.execute(select(User.id, User.name, User.date_of_birth, User.start_date, User.end_date)
                          .where(User.is_active.is_(True),
                                 or_(User.date_of_birth.is_not(None), User.start_date.is_not(None)),
                                 or_(User.end_date.is_(None), User.end_date >= first))
                          .order_by(User.name, User.id).limit(5000))
        years = range(first.year, last.year + 1)
        for user_id, name, born, started, ended in rows:
            until = min(last, ended) if ended else last
            since = max(first, started) if started else first
            for year in years:
                if settings["show_birthdays"] and born and year > born.year:
                    day = _on(year, born.month, born.day)
                    if since <= day <= until:
                        events.append(_all_day(f"birthday-{user_id}-{year}", "birthday", f"{name}'s birthday", day,
                                               user_id=user_id))
                if settings["show_anniversaries"] and started and year > started.year:
                    day = _on(year, started.month, started.day)
                    if first <= day <= until:
                        count = year - started.year
                        events.append(_all_day(f"anniversary-{user_id}-{year}", "anniversary",
                                               f"{name}: {count} year{'s' if count != 1 else ''} at the company", day,
                                               user_id=user_id))
            if settings["show_new_starters"] and started and first <= started <= last:
                events.append(_all_day(f"new-starter-{user_id}", "new_starter", f"{name} starts", started,
                                       user_id=user_id))
    if settings["show_leave"]:
        from chalicelib.areas.leave import service as leave_service

        for request_id, user_id, name, start, end in leave_service.approved_leave_between(db, first, last):
            events.append(_all_day(f"leave-{request_id}", "leave", f"{name} on leave", start, end, user_id=user_id))
    if settings["show_public_holidays"]:
        for holiday in db.scalars(select(PublicHoliday).where(PublicHoliday.date.between(first, last))
                                  .order_by(PublicHoliday.date, PublicHoliday.name, PublicHoliday.id)
                                  .limit(LIST_LIMIT)):
            events.append(_all_day(f"public-holiday-{holiday.id}", "public_holiday", holiday.name, holiday.date,
                                   region=holiday.region))
    if settings["show_events"]:
        ends = CultureEvent.end_date
        for event in db.scalars(select(CultureEvent).where(
                CultureEvent.status.in_(("confirmed", "planned")), CultureEvent.date <= last,
                or_(and_(ends.is_(None), CultureEvent.date >= first), ends >= first))
                .order_by(CultureEvent.date, CultureEvent.title, CultureEvent.id).limit(LIST_LIMIT)):
            events.append(_all_day(f"culture-event-{event.id}", "culture_event", event.title, event.date,
                                   event.end_date, description=event.description, location=event.location,
                                   event_status=event.status))
    return events


def json_list(value: list | None) -> str | None:
    return None if value is None else json.dumps(value)
