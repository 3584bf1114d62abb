"""Calendar: the interface every calendar adapter implements, in Google Calendar API v3's terms.

Every call acts as a user of the organisation (`user_email`: domain-wide delegation), on a calendar id
(`primary` is that user's own calendar). Events are Google event resources (id, status, htmlLink,
summary, description, location, start, end, attendees, organizer).
"""
from __future__ import annotations

import hashlib
import re
from typing import Protocol

from chalicelib.core.errors import DomainError
from chalicelib.core.settings import get_settings

RESPONSES = ("accepted", "declined", "tentative")


class CalendarError(DomainError):
    """A provider failure: `{ error, detail }` with the provider's message in detail (document 3: calendar
    create failure). Status 502 by default; the provider's 404 stays 404, a rate limit is 503, a timeout 504."""

    status = 502
    default_message = "Calendar provider request failed"

    def __init__(self, message: str | None = None, *, detail: str = "", status: int | None = None,
                 reason: str | None = None) -> None:
        super().__init__(message, extra={"detail": detail or message or self.default_message})
        if status is not None:
            self.status = status
        # Google's own reason of the error (`errors[0].reason`: `duplicate` for an insert whose client-chosen id is
        # in use, session 27); never answered, for the caller to tell one 409 from another
        self.reason = reason


def team_calendar_id() -> str:
    """The shared team calendar (CALENDAR_TEAM_CALENDAR_ID; `team` in the sandbox)."""
    return get_settings().calendar_team_calendar_id or "team"


def client_event_id(prefix: str, key: str) -> str:
    """An event id the app chooses for the event it makes for one record (session 27: `key` the record's id), so
    that an insert retried after a lost answer meets Google's 409 `duplicate` instead of making a second event:
    `prefix` and the key's uuid without its dashes, else a digest of the key; in Google's alphabet for a client id
    (base32hex: a-v, 0-9), `prefix` included."""
    digits = key.replace("-", "").lower()
    if not re.fullmatch(r"[0-9a-f]{32}", digits):
        digits = hashlib.sha256(key.encode()).hexdigest()[:32]
    return f"{prefix}{digits}"


class CalendarProvider(Protocol):
    def list_calendars(self, user_email: str) -> list[dict]:
        """`[{id, label}]`: the user's primary calendar and the shared team calendar."""
        ...

    def list_events(self, user_email: str, calendar_id: str, *, time_min: str, time_max: str) -> list[dict]:
        """Events overlapping [time_min, time_max) (RFC 3339), single events (recurrences expanded)."""
        ...

    def get_event(self, user_email: str, calendar_id: str, event_id: str) -> dict:
        ...

    def insert_event(self, user_email: str, calendar_id: str, event: dict) -> dict:
        """Create; invitations are sent to the attendees (sendUpdates=all). An `id` in `event` is the client's choice
        (Google: base32hex, characters a-v and 0-9, 5 to 1024 long; an invalid one is a 400): an id already in use
        in that calendar is a CalendarError 409 with `reason` `duplicate`, so that a retry after a lost answer
        finds the event it made instead of making a second one."""
        ...

    def update_event(self, user_email: str, calendar_id: str, event_id: str, event: dict) -> dict:
        """Replace the event's fields given (attendees replaces the whole list); sendUpdates=all."""
        ...

    def patch_event(self, user_email: str, calendar_id: str, event_id: str, patch: dict) -> dict:
        ...

    def delete_event(self, user_email: str, calendar_id: str, event_id: str) -> None:
        ...

    def respond(self, user_email: str, calendar_id: str, event_id: str, status: str) -> dict:
        """Set only the caller's attendee responseStatus (the organiser is told: sendUpdates=all)."""
        ...


def with_own_response(event: dict, user_email: str, status: str) -> list[dict]:
    """The event's attendees with the caller's responseStatus set to `status` (others unchanged); a
    CalendarError 400 when the caller is not invited."""
    attendees = [dict(attendee) for attendee in event.get("attendees") or []]
    mine = [a for a in attendees if (a.get("email") or "").lower() == user_email.lower() or a.get("self")]
    if not mine:
        raise CalendarError("You are not an attendee of this event", detail="The caller is not in the attendee list",
                            status=400)
    for attendee in mine:
        attendee["responseStatus"] = status
    return attendees
