"""Background work of the calendar area: the invite scan and the daily purge of the place search cache.

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.context.job_context()`).
"""
from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import select, tuple_

from chalicelib.core.context import job_context
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_ignore, insert_new, lock_key
from chalicelib.core.models import User

from .models import CalendarInvite, PlaceSearchCache

log = logging.getLogger("wms.calendar")
SCAN_DAYS = 60
# no user's calendar is started after this many seconds of the function's 300 s (infra/areas.json): one user's read
# is a token exchange and one or more pages, each up to 15 s
SCAN_SECONDS = 240
# users with nothing awaiting them are written (the cursor only) every this many users
CHUNK_USERS = 25
# the last user a scan wrote, kept as the one-element `results` of a place_search_cache row (as the Nominatim turn,
# `~nominatim:last-request`): a key no search has (theirs are `<country>|<query>`); no new table or column
CURSOR_KEY = "~calendar-invite-scan:cursor"


def _awaiting(event: dict, email: str) -> bool:
    """The user is invited (not the organiser) and has not answered."""
    if event.get("status") == "cancelled" or event.get("synthetic"):
        return False
    if ((event.get("organizer") or {}).get("email") or "").lower() == email:
        return False
    return any(((a.get("email") or "").lower() == email or a.get("self")) and a.get("responseStatus") == "needsAction"
               for a in event.get("attendees") or [])


def scan_invites() -> dict:
    """Notify each active user holding calendar view (`meeting_invited`; its link, the calendar page, answers 403
    to anyone else: session 26) of the invitations on their primary calendar in the next 60 days that await their
    response, once per invitation: one answered through the respond endpoint, or
    already notified, is never notified again. Run twice: nothing new. By hand:
    `python -m chalicelib.cli job calendar-invite-scan`.

    The users are taken in id order starting after the last one a scan wrote (the cursor, going round), each
    calendar read with no transaction open; what was read is written (`_record`) in a short transaction of its own
    at once for a user with an invitation awaiting them, otherwise every CHUNK_USERS users (the cursor only). No
    user is started after SCAN_SECONDS of the function's 300 s (`left`: those the next run starts with). It read
    everyone before writing anything in one transaction: a run killed at its timeout kept nothing, and every
    retry and tick asked everyone again and was killed again (session 22's retries audit)."""
    from chalicelib.core.errors import DomainError
    from chalicelib.core.permissions import holders_select
    from chalicelib.core.timeutil import TimeBudget
    from chalicelib.providers.calendar import get_calendar

    with job_context() as ctx:
        db = ctx.db
        calendar = get_calendar(db=db)  # the sandbox reads its table through this session
        if calendar is None:
            return {"skipped": "calendar not configured"}
        # only those who may open the calendar (its link answers 403 to anyone else): session 26
        users = db.execute(select(User.id, User.email)
                           .where(User.is_active.is_(True), User.id.in_(holders_select("calendar", "view")))
                           .order_by(User.id)).all()
        cursor = db.get(PlaceSearchCache, CURSOR_KEY)
        after = cursor.results[0] if cursor is not None and cursor.results else None
        ctx.release_connection()
        # going round: the users after the cursor first, then those before it (and the cursor's own)
        ordered = [u for u in users if after is not None and u.id > after] + \
                  [u for u in users if after is None or u.id <= after]
        now = utcnow()
        time_min, time_max = now.strftime("%Y-%m-%dT%H:%M:%SZ"), (now + timedelta(days=SCAN_DAYS)).strftime(
            "%Y-%m-%dT%H:%M:%SZ")
        budget = TimeBudget(SCAN_SECONDS)
        answer = {"users": len(users), "scanned": 0, "awaiting": 0, "notified": 0, "failed": 0}
        pending: dict[tuple[str, str], dict] = {}
        chunk = 0
        for position, (user_id, email) in enumerate(ordered):
            if budget.spent():
                answer["left"] = len(ordered) - position
                break
            try:
                events = calendar.list_events(email, "primary", time_min=time_min, time_max=time_max)
            except DomainError as exc:
                answer["failed"] += 1
                log.warning("invite scan: the calendar of user %s failed: %s", user_id, exc.message)
                events = []
            finally:
                ctx.release_connection()  # the sandbox's read ends: nothing is open while a chunk is written
            answer["scanned"] += 1
            chunk += 1
            for event in events:
                if event.get("id") and _awaiting(event, email.lower()):
                    pending[(user_id, str(event["id"]))] = event
            if pending or chunk >= CHUNK_USERS or position == len(ordered) - 1:
                answer["awaiting"] += len(pending)
                answer["notified"] += _record(pending, user_id)
                pending, chunk = {}, 0
        if chunk:  # stopped by the budget with users read and not written
            answer["awaiting"] += len(pending)
            answer["notified"] += _record(pending, ordered[position - 1].id)
    return answer


def _record(pending: dict[tuple[str, str], dict], cursor: str) -> int:
    """Record and notify the new invitations among `pending` ((user id, event id) to the event) and move the
    cursor to `cursor` (the last user read), in a unit of work of its own under the `calendar-invite-scan` lock
    (concurrent scans notify once). Answers how many were notified."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    with job_context() as ctx:
        db = ctx.db
        lock_key(db, "calendar-invite-scan")  # concurrent scans notify once
        seen = set()
        if pending:
            seen = set(db.execute(select(CalendarInvite.user_id, CalendarInvite.event_id)
                                  .where(tuple_(CalendarInvite.user_id, CalendarInvite.event_id).in_(list(pending)))).tuples())
        now = utcnow()
        # a response recorded meanwhile (the respond endpoint takes no scan lock) keeps its row: not notified
        made = insert_new(db, CalendarInvite, [{"user_id": user_id, "event_id": event_id, "notified_at": now}
                                               for user_id, event_id in pending if (user_id, event_id) not in seen],
                          conflict=("user_id", "event_id"))
        new = [(key, event) for key, event in pending.items() if key in made]
        notify_many(ctx, [{"user_id": user_id, "type": "meeting_invited",
                           "title": f"Invitation: {event.get('summary') or 'a meeting'}",
                           "body": _when(event), "resource_type": "calendar_event", "resource_id": event_id,
                           "action_url": f"/calendar?event={event_id}"} for (user_id, event_id), event in new])
        row = db.get(PlaceSearchCache, CURSOR_KEY, populate_existing=True)
        if row is None:
            insert_ignore(db, PlaceSearchCache, {"key": CURSOR_KEY, "results": [cursor], "cached_at": now},
                          conflict=("key",))
        else:
            row.results, row.cached_at = [cursor], now
            db.flush()
    return len(new)


def _when(event: dict) -> str | None:
    """When the meeting starts, as a person reads it: in ORG_TIMEZONE ("Mon 5 Jan 2099, 21:00"), or the day of an
    all-day event ("Mon 5 Jan 2099, all day"); the provider's own value when it cannot be read. It was the raw
    value ("2099-01-05T10:00:00Z": UTC, or another zone's offset). The start is read as the event list reads it
    (queries.event_start): a time without an offset is in the event's `timeZone`, else ORG_TIMEZONE (session 26;
    it was read in the machine's zone)."""
    from datetime import datetime

    from chalicelib.core.timeutil import org_zone

    from .queries import event_start

    start = event_start(event)
    try:
        if isinstance(start, datetime):
            moment = start.astimezone(org_zone())
            return f"{moment:%a} {moment.day} {moment:%b %Y}, {moment:%H:%M}"
        if start is not None:
            return f"{start:%a} {start.day} {start:%b %Y}, all day"
    except (OverflowError, ValueError):  # an instant outside the years 1 to 9999 in ORG_TIMEZONE
        pass
    raw = (event.get("start") or {})
    return raw.get("dateTime") or raw.get("date")


PURGE_BATCH = 10_000  # rows a DELETE removes at most (one statement, one short transaction each)
PURGE_SECONDS = 60  # of the calendar jobs' 300 s (infra/areas.json): no batch is started past them


def place_cache_purge(*, batch: int = PURGE_BATCH, seconds: float = PURGE_SECONDS) -> dict:
    """Delete the place searches cached over a day longer than search_places reads them (PLACES_CACHE_DAYS, 30:
    an older answer is asked again and rewritten), never a reserved row: the Nominatim turn
    (providers.places.live.TURN_KEY) nor this scan's cursor (CURSOR_KEY), nor any key starting `~` (no search's
    key does: theirs are `<country>|<query>`). Batches of at most `batch` rows, one DELETE and one transaction each,
    until a batch deletes fewer; none started after `seconds` (`more`: the next run goes on). Run again: nothing.
    By hand: `python -m chalicelib.cli job place-cache-purge`."""
    from sqlalchemy import delete

    from chalicelib.core.timeutil import TimeBudget, in_batches
    from chalicelib.providers.places.live import TURN_KEY

    from .service import PLACES_CACHE_DAYS

    before = utcnow() - timedelta(days=PLACES_CACHE_DAYS + 1)

    def step() -> int:
        with job_context() as ctx:
            keys = (select(PlaceSearchCache.key)
                    .where(PlaceSearchCache.cached_at < before, PlaceSearchCache.key.notin_((TURN_KEY, CURSOR_KEY)),
                           ~PlaceSearchCache.key.startswith("~"))
                    .limit(batch))
            return ctx.db.execute(delete(PlaceSearchCache).where(PlaceSearchCache.key.in_(keys))
                                  .execution_options(synchronize_session=False)).rowcount

    deleted, more = in_batches(step, size=batch, budget=TimeBudget(seconds))
    return {"places": deleted, **({"more": True} if more else {})}
