"""Sandbox calendar: events kept in `sandbox_calendar_events`, answered in Google Calendar's event shape.

Behaves like Google for the cases the service needs: `primary` is the acting user's calendar; an event
with attendees also appears on each attendee's primary calendar with their responseStatus `needsAction`
(the organiser `accepted`); a calendar other than the acting user's and the team calendar is not found (404), as
Google answers for a calendar not shared with the caller (session 28: another user's primary calendar was answered
whole), and so is a calendar id containing `invalid`; an event without start or end is refused (400). An insert may
choose the event's `id` as Google's does (base32hex: a-v and 0-9, at least 5 long; else 400 `invalid`); one
already held is 409 `duplicate` (session 27). The sandbox keeps ids of at most 64 characters (Google: 1024) and
holds them unique across its calendars (Google: per calendar).

An insert, an update, a patch (a response) and a delete are Google's doing: each is committed at once, in a
transaction of its own, and kept whatever becomes of the caller's (session 32: they were written in the caller's
transaction, and undone with it, which hid a request failing after Google made or changed the event).
"""
from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import or_, select

from chalicelib.core.ids import utcnow
from chalicelib.core.timeutil import iso, org_zone
from chalicelib.providers.ledger.sandbox import own_unit

from .base import CalendarError, team_calendar_id, with_own_response
from .models import SandboxCalendarEvent

EVENT_FIELDS = ("summary", "description", "location", "start", "end", "attendees")
CLIENT_ID = re.compile(r"[a-v0-9]{5,64}")  # Google: base32hex, 5 to 1024 long; the sandbox's column holds 64
# What the live adapter reads of one range (live.py: MAX_PAGES pages of 250 events): past it a 502, never a partial
# list (session 32: the sandbox answered its first 2500 events as the whole range)
PAGE_SIZE, MAX_PAGES = 250, 20


def _stored(moment: datetime) -> datetime:
    """The moment as the table keeps it (UTC); at the ends of the calendar (0001-01-01 east of UTC, 9999-12-31
    west of it) the same wall-clock time in UTC, which the table can hold."""
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:
        return moment.replace(tzinfo=timezone.utc)


def _parse_time(value: dict | None, field: str) -> datetime:
    """An event time as Google reads it: a dateTime with an offset as it is, one without in its `timeZone` (with
    neither: 400 "Missing time zone definition", as Google answers); an all-day date from its first moment in the
    calendar's time zone (ORG_TIMEZONE here: the team's calendars are kept in it)."""
    if not isinstance(value, dict) or not (value.get("dateTime") or value.get("date")):
        raise CalendarError("Calendar provider refused the event", detail=f"Missing {field} time.", status=400)
    try:
        if value.get("dateTime"):
            moment = datetime.fromisoformat(str(value["dateTime"]).replace("Z", "+00:00"))
            if moment.tzinfo:
                return moment
            if not value.get("timeZone"):
                raise CalendarError("Calendar provider refused the event",
                                    detail=f"Missing time zone definition for {field} time.", status=400)
            return _stored(moment.replace(tzinfo=ZoneInfo(str(value["timeZone"]))))
        day = datetime.fromisoformat(str(value["date"]))
        return _stored(day.replace(tzinfo=org_zone()))
    except (ValueError, ZoneInfoNotFoundError) as exc:
        raise CalendarError("Calendar provider refused the event", detail=f"Invalid {field} time.", status=400) from exc


def _parse_bound(value: str) -> datetime:
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


class SandboxCalendar:
    def __init__(self, *, db=None) -> None:
        if db is None:
            from chalicelib.core.db import new_session

            db = new_session()
        self.db = db

    # ------------------------------------------------------------ helpers

    def _calendar(self, user_email: str, calendar_id: str) -> str:
        """The calendar named, when the caller's own (`primary`, their address) or the team calendar; any other is not
        found (404), as Google answers for a calendar not shared with the caller: another user's primary calendar
        was read and written back whole (session 28). A name containing `invalid` is not found either."""
        own = user_email.lower()
        calendar = own if calendar_id == "primary" or calendar_id.lower() == own else calendar_id
        if "invalid" in calendar_id.lower() or calendar not in (own, team_calendar_id()):
            raise CalendarError("Calendar not found", detail="Not Found", status=404)
        return calendar

    def _row(self, user_email: str, calendar_id: str, event_id: str) -> SandboxCalendarEvent:
        calendar = self._calendar(user_email, calendar_id)
        row = self.db.get(SandboxCalendarEvent, event_id)
        if row is None or (row.calendar_id != calendar and f",{calendar}," not in row.attendee_emails):
            raise CalendarError("Event not found", detail="Not Found", status=404)
        return row

    def _organised(self, user_email: str, calendar_id: str, row: SandboxCalendarEvent) -> None:
        """403 unless the event lives in the calendar named (the organiser's, or the team calendar): a guest sees the
        event on their own calendar but may not change it for everyone (Google: a guest without guestsCanModify
        changes only their own response)."""
        if row.calendar_id != self._calendar(user_email, calendar_id):
            raise CalendarError("Calendar provider refused the request",
                                detail="You need to have writer access to this calendar.", status=403)

    def _view(self, row: SandboxCalendarEvent, viewer: str) -> dict:
        event = dict(row.event)
        attendees = [dict(a) for a in event.get("attendees") or []]
        for attendee in attendees:
            if (attendee.get("email") or "").lower() == viewer.lower():
                attendee["self"] = True
        if attendees:
            event["attendees"] = attendees
        organizer = dict(event.get("organizer") or {})
        if (organizer.get("email") or "").lower() == viewer.lower():
            organizer["self"] = True
        event["organizer"] = organizer
        return event

    def _store(self, row: SandboxCalendarEvent, event: dict) -> None:
        start, end = _parse_time(event.get("start"), "start"), _parse_time(event.get("end"), "end")
        if end < start:
            raise CalendarError("Calendar provider refused the event", detail="The specified time range is empty.",
                                status=400)
        attendees = []
        for attendee in event.get("attendees") or []:
            email = str(attendee.get("email") or "").strip().lower()
            if not email:
                continue
            attendees.append({**{k: v for k, v in attendee.items() if k != "self"}, "email": email,
                              "responseStatus": attendee.get("responseStatus") or (
                                  "accepted" if email == row.organizer_email else "needsAction")})
        event["attendees"] = attendees
        event["updated"] = iso(utcnow())
        row.event = {key: value for key, value in event.items() if key != "self"}
        row.start_at, row.end_at = start, end
        row.attendee_emails = "," + ",".join(a["email"] for a in attendees) + "," if attendees else ""
        self.db.flush()

    # ------------------------------------------------------------ the interface

    def list_calendars(self, user_email: str) -> list[dict]:
        return [{"id": "primary", "label": user_email}, {"id": team_calendar_id(), "label": "Team calendar"}]

    def list_events(self, user_email: str, calendar_id: str, *, time_min: str, time_max: str) -> list[dict]:
        calendar = self._calendar(user_email, calendar_id)
        rows = self.db.scalars(
            select(SandboxCalendarEvent)
            .where(or_(SandboxCalendarEvent.calendar_id == calendar,
                       SandboxCalendarEvent.attendee_emails.contains(f",{calendar},", autoescape=True)),
                   SandboxCalendarEvent.end_at > _parse_bound(time_min),
                   SandboxCalendarEvent.start_at < _parse_bound(time_max))
            .order_by(SandboxCalendarEvent.start_at, SandboxCalendarEvent.id).limit(PAGE_SIZE * MAX_PAGES + 1)).all()
        if len(rows) > PAGE_SIZE * MAX_PAGES:
            raise CalendarError("Calendar provider answered too many pages of events",
                                detail=f"more than {MAX_PAGES} pages of {PAGE_SIZE} events from {time_min} to "
                                       f"{time_max}; ask for a shorter range")
        return [self._view(row, user_email) for row in rows]

    def get_event(self, user_email: str, calendar_id: str, event_id: str) -> dict:
        return self._view(self._row(user_email, calendar_id, event_id), user_email)

    def insert_event(self, user_email: str, calendar_id: str, event: dict) -> dict:
        with own_unit(self):  # Google keeps it whatever the caller does next
            calendar = self._calendar(user_email, calendar_id)
            event_id = event.get("id") or uuid.uuid4().hex
            if not CLIENT_ID.fullmatch(str(event_id)):
                raise CalendarError("Calendar provider refused the request", detail="Invalid resource id value.",
                                    status=400, reason="invalid")
            if self.db.get(SandboxCalendarEvent, event_id) is not None:
                raise CalendarError("Calendar provider refused the request",
                                    detail="The requested identifier already exists.", status=409,
                                    reason="duplicate")
            now = iso(utcnow())
            body = {key: event[key] for key in EVENT_FIELDS if event.get(key) is not None}
            body.update(id=event_id, status="confirmed",
                        htmlLink=f"https://calendar.sandbox.test/event?eid={event_id}", created=now,
                        organizer={"email": user_email.lower()}, creator={"email": user_email.lower()})
            row = SandboxCalendarEvent(id=event_id, calendar_id=calendar, organizer_email=user_email.lower(),
                                       start_at=utcnow(), end_at=utcnow() + timedelta(hours=1), event={})
            self._store(row, body)
            self.db.add(row)
            self.db.flush()
            return self._view(row, user_email)

    def update_event(self, user_email: str, calendar_id: str, event_id: str, event: dict) -> dict:
        with own_unit(self):  # Google keeps it whatever the caller does next
            row = self._row(user_email, calendar_id, event_id)
            self._organised(user_email, calendar_id, row)
            old = {(a.get("email") or "").lower(): a.get("responseStatus") for a in row.event.get("attendees") or []}
            body = {**row.event, **{key: event.get(key) for key in EVENT_FIELDS}}
            body["attendees"] = [{**a, "responseStatus": a.get("responseStatus")
                                  or old.get((a.get("email") or "").lower())} for a in body.get("attendees") or []]
            self._store(row, {k: v for k, v in body.items() if v is not None})
            return self._view(row, user_email)

    def patch_event(self, user_email: str, calendar_id: str, event_id: str, patch: dict) -> dict:
        with own_unit(self):  # Google keeps it whatever the caller does next
            row = self._row(user_email, calendar_id, event_id)
            if set(patch) - {"attendees"}:
                self._organised(user_email, calendar_id, row)
            self._store(row, {**row.event, **patch})
            return self._view(row, user_email)

    def delete_event(self, user_email: str, calendar_id: str, event_id: str) -> None:
        with own_unit(self):  # Google keeps it whatever the caller does next
            row = self._row(user_email, calendar_id, event_id)
            if row.calendar_id != self._calendar(user_email, calendar_id):
                # a guest's delete takes the event off their own calendar only, as Google's does: they leave its
                # guests
                guest = user_email.lower()
                self._store(row, {**row.event, "attendees": [a for a in row.event.get("attendees") or []
                                                             if (a.get("email") or "").lower() != guest]})
                return
            self.db.delete(row)
            self.db.flush()

    def respond(self, user_email: str, calendar_id: str, event_id: str, status: str) -> dict:
        event = self.get_event(user_email, calendar_id, event_id)
        return self.patch_event(user_email, calendar_id, event_id,
                                {"attendees": with_own_response(event, user_email, status)})
