"""Background work of the calendar area: the invite scan.

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.context.job_context()`).
"""
from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import select, tuple_

from chalicelib.core.context import job_context
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_new, lock_key
from chalicelib.core.models import User

from .models import CalendarInvite

log = logging.getLogger("wms.calendar")
SCAN_DAYS = 60


def _awaiting(event: dict, email: str) -> bool:
    """The user is invited (not the organiser) and has not answered."""
    if event.get("status") == "cancelled" or event.get("synthetic"):
        return False
    if ((event.get("organizer") or {}).get("email") or "").lower() == email:
        return False
    return any(((a.get("email") or "").lower() == email or a.get("self")) and a.get("responseStatus") == "needsAction"
               for a in event.get("attendees") or [])


def scan_invites() -> dict:
    """Notify each active user (`meeting_invited`) of the invitations on their primary calendar in the next
    60 days that await their response, once per invitation: one answered through the respond endpoint, or
    already notified, is never notified again. Run twice: nothing new. By hand:
    `python -m chalicelib.cli job calendar-invite-scan`."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    from chalicelib.core.errors import DomainError
    from chalicelib.providers.calendar import get_calendar

    with job_context() as ctx:
        db = ctx.db
        calendar = get_calendar(db=db)
        if calendar is None:
            return {"skipped": "calendar not configured"}
        users = db.execute(select(User.id, User.email).where(User.is_active.is_(True)).order_by(User.id)).all()
        ctx.release_connection()
        now = utcnow()
        time_min, time_max = now.strftime("%Y-%m-%dT%H:%M:%SZ"), (now + timedelta(days=SCAN_DAYS)).strftime(
            "%Y-%m-%dT%H:%M:%SZ")
        pending: dict[tuple[str, str], dict] = {}
        failed = 0
        for user_id, email in users:
            try:
                events = calendar.list_events(email, "primary", time_min=time_min, time_max=time_max)
            except DomainError as exc:
                failed += 1
                log.warning("invite scan: the calendar of user %s failed: %s", user_id, exc.message)
                continue
            for event in events:
                if event.get("id") and _awaiting(event, email.lower()):
                    pending[(user_id, str(event["id"]))] = event
        lock_key(db, "calendar-invite-scan")  # concurrent scans notify once
        seen = set()
        if pending:
            seen = set(db.execute(select(CalendarInvite.user_id, CalendarInvite.event_id)
                                  .where(tuple_(CalendarInvite.user_id, CalendarInvite.event_id).in_(list(pending)))).tuples())
        # a response recorded meanwhile (the respond endpoint takes no scan lock) keeps its row: not notified
        made = insert_new(db, CalendarInvite, [{"user_id": user_id, "event_id": event_id, "notified_at": now}
                                               for user_id, event_id in pending if (user_id, event_id) not in seen],
                          conflict=("user_id", "event_id"))
        new = [(key, event) for key, event in pending.items() if key in made]
        notify_many(ctx, [{"user_id": user_id, "type": "meeting_invited",
                           "title": f"Invitation: {event.get('summary') or 'a meeting'}",
                           "body": _when(event), "resource_type": "calendar_event", "resource_id": event_id,
                           "action_url": f"/calendar?event={event_id}"} for (user_id, event_id), event in new])
    return {"users": len(users), "awaiting": len(pending), "notified": len(new), "failed": failed}


def _when(event: dict) -> str | None:
    """When the meeting starts, as a person reads it: in ORG_TIMEZONE ("Mon 5 Jan 2099, 21:00"), or the day of an
    all-day event ("Mon 5 Jan 2099, all day"); the provider's own value when it cannot be read. It was the raw
    value ("2099-01-05T10:00:00Z": UTC, or another zone's offset)."""
    from datetime import date, datetime

    from chalicelib.core.timeutil import org_zone

    start = event.get("start") or {}
    raw = start.get("dateTime") or start.get("date")
    try:
        if start.get("dateTime"):
            moment = datetime.fromisoformat(start["dateTime"].replace("Z", "+00:00")).astimezone(org_zone())
            return f"{moment:%a} {moment.day} {moment:%b %Y}, {moment:%H:%M}"
        if start.get("date"):
            day = date.fromisoformat(start["date"])
            return f"{day:%a} {day.day} {day:%b %Y}, all day"
    except (TypeError, ValueError):
        pass
    return raw
