"""Background work of the calendar area: the invite scan and the daily purge of the place search cache.

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.context.job_context()`).
"""
from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import case, or_, select, tuple_, update

from chalicelib.core.context import job_context
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_ignore, insert_new, lock_key
from chalicelib.core.models import User

from .models import CalendarInvite, PlaceSearchCache
from .queries import invite_key

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


ANSWERS = ("accepted", "declined", "tentative")
ANSWERED_PER_STATEMENT = 30_000  # (user id, event id) keys an UPDATE binds: within the 65,535 values of a statement


def _own_responses(event: dict, email: str) -> set:
    """The user's responseStatus as an invitee (not the organiser): none when not invited, cancelled or synthetic."""
    if event.get("status") == "cancelled" or event.get("synthetic"):
        return set()
    if ((event.get("organizer") or {}).get("email") or "").lower() == email:
        return set()
    return {a.get("responseStatus") for a in event.get("attendees") or []
            if (a.get("email") or "").lower() == email or a.get("self")}


def _awaiting(event: dict, email: str) -> bool:
    """The user is invited (not the organiser) and has not answered."""
    return "needsAction" in _own_responses(event, email)


def _answered(event: dict, email: str) -> bool:
    """The user is invited (not the organiser) and has answered (accepted, declined or tentative)."""
    responses = _own_responses(event, email)
    return "needsAction" not in responses and bool(responses & set(ANSWERS))


def scan_invites() -> dict:
    """Notify each active user holding calendar view (`meeting_invited`; its link, the calendar page, answers 403
    to anyone else: session 26) of the invitations on their primary calendar in the next 60 days that await their
    response, once per invitation (a recurring event's instances are one, its series: session 28): one answered
    through the respond endpoint, or already notified, is not notified again, until the organiser resets it to
    needsAction after the user answered (through respond, or in the calendar as a scan saw it): then once again per
    reset (session 27, `_record`).
    Run twice: nothing new. By hand:
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
        # (user id, invitation: queries.invite_key) to (the event, when its calendar was read) for an invitation
        # awaiting the user, or to (None, when read) for one the user has answered (accepted, declined, tentative):
        # session 27
        pending: dict[tuple[str, str], tuple[dict | None, object]] = {}
        chunk = awaiting = 0
        for position, (user_id, email) in enumerate(ordered):
            if budget.spent():
                answer["left"] = len(ordered) - position
                break
            read_at = utcnow()  # before the read: an answer recorded after it is not seen in what it reads
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
            for event in events:  # in order of start (singleEvents=true&orderBy=startTime; the sandbox's order)
                if not event.get("id"):
                    continue
                # a recurring event's instances are one invitation, its series (session 28): awaiting when any
                # instance awaits (the first one awaiting is the notice's), answered when every instance seen is
                key = (user_id, invite_key(event))
                if _awaiting(event, email.lower()):
                    if pending.get(key, (None,))[0] is None:  # its first instance awaiting (an answered one yields)
                        pending[key] = (event, read_at)
                        awaiting += 1
                elif _answered(event, email.lower()):
                    pending.setdefault(key, (None, read_at))
            if awaiting or chunk >= CHUNK_USERS or position == len(ordered) - 1:
                answer["awaiting"] += awaiting
                answer["notified"] += _record(pending, user_id)
                pending, chunk, awaiting = {}, 0, 0
        if chunk:  # stopped by the budget with users read and not written
            answer["awaiting"] += awaiting
            answer["notified"] += _record(pending, ordered[position - 1].id)
    return answer


def _record(pending: dict[tuple[str, str], tuple[dict | None, object]], cursor: str) -> int:
    """Record and notify the invitations among `pending` ((user id, invitation key) to (the event, when it was read);
    the event None for one the user has answered) that are new or were reset, record the answers seen, and move the
    cursor to `cursor` (the last user read), in a unit of work of its own under the `calendar-invite-scan` lock.
    Answers how many were notified. Concurrent scans notify once per reset: the lock orders their writes, and every
    time a scan records is that of its read (`notified_at`, `responded_at`), so what it read is weighed against what
    others recorded by when it was read, not by when it was written (session 27: an older read of an answer written
    after a newer scan announced the reset had the next scan announce that reset again).

    An invitation is announced when first seen awaiting, and again when seen awaiting after an answer given since
    it was last announced (session 27: the organiser reset the responses, e.g. after a change of time): an answer
    through the respond endpoint (`responded_at`, from before the calendar was read: one recorded meanwhile is not
    reset by what was read before it) or one this scan saw in the calendar (an announced invitation seen answered
    gets `responded_at`, when read). Once per reset: announcing sets `notified_at`, when the invitation was read
    awaiting, after the answer. Statements: the read of the stored invitations, the INSERT of the new ones, an
    UPDATE of the reset ones (only when there are), one UPDATE of the answers seen (leaving with the next
    statement: nobody reads it), notify_many's, the cursor's."""
    from chalicelib.core.db import WRITE_LATER
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    with job_context() as ctx:
        db = ctx.db
        lock_key(db, "calendar-invite-scan")  # concurrent scans notify once
        awaiting = {key: value for key, value in pending.items() if value[0] is not None}
        answered = [key for key, (event, _) in pending.items() if event is None]
        # when each user's calendar was read (one read a user a scan): what a scan records is as of its read
        read_at = {user_id: read for (user_id, _), (_, read) in pending.items()}
        stored = {}
        if awaiting:
            stored = {(user_id, event_id): (notified, responded) for user_id, event_id, notified, responded in
                      db.execute(select(CalendarInvite.user_id, CalendarInvite.event_id, CalendarInvite.notified_at,
                                        CalendarInvite.responded_at)
                                 .where(tuple_(CalendarInvite.user_id, CalendarInvite.event_id).in_(list(awaiting))))}
        now = utcnow()
        # a response recorded meanwhile (the respond endpoint takes no scan lock) keeps its row: not notified
        # `notified_at`: when the invitation announced was read awaiting (not when written: see below)
        made = insert_new(db, CalendarInvite, [{"user_id": user_id, "event_id": event_id, "notified_at": read}
                                               for (user_id, event_id), (_, read) in awaiting.items()
                                               if (user_id, event_id) not in stored],
                          conflict=("user_id", "event_id"))
        # answered since last announced, before its calendar was read, and awaiting again: reset by the organiser
        reset = [key for key, (notified, responded) in stored.items() if responded is not None
                 and (notified is None or notified < responded) and responded < awaiting[key][1]]
        if reset:  # the same test in the UPDATE: an answer recorded since the read above is not reset
            read = _read_at(read_at, reset)
            made |= set(db.execute(
                update(CalendarInvite)
                .where(tuple_(CalendarInvite.user_id, CalendarInvite.event_id).in_(reset),
                       CalendarInvite.responded_at < read,
                       or_(CalendarInvite.notified_at.is_(None),
                           CalendarInvite.notified_at < CalendarInvite.responded_at))
                .values(notified_at=read).returning(CalendarInvite.user_id, CalendarInvite.event_id)
                .execution_options(synchronize_session=False)).tuples())
        # an invitation seen answered in the calendar: a later reset is announced again. `responded_at` is when the
        # calendar was read, and only where no announcement read after that (nor an answer) is recorded: scans
        # overlap, and one that read "answered" before the organiser's reset may write after one that read the reset
        # and announced it; stamped with the time of writing, that stale answer looked newer than the announcement
        # and the next scan announced the same reset again (session 27). Two bound values a key (and two a user):
        # past the protocol's limit, as few statements as it allows
        for start in range(0, len(answered), ANSWERED_PER_STATEMENT):
            keys = answered[start:start + ANSWERED_PER_STATEMENT]
            seen = _read_at(read_at, keys)
            db.execute(update(CalendarInvite)
                       .where(tuple_(CalendarInvite.user_id, CalendarInvite.event_id).in_(keys),
                              or_(CalendarInvite.notified_at.is_(None), CalendarInvite.notified_at < seen),
                              or_(CalendarInvite.responded_at.is_(None),
                                  CalendarInvite.responded_at <= CalendarInvite.notified_at))
                       .values(responded_at=seen), execution_options={**WRITE_LATER, "synchronize_session": False})
        new = [(user_id, event) for (user_id, key), (event, _) in awaiting.items() if (user_id, key) in made]
        # the notice names the event read (a series' first instance awaiting): the calendar page opens an event by it
        notify_many(ctx, [{"user_id": user_id, "type": "meeting_invited",
                           "title": f"Invitation: {event.get('summary') or 'a meeting'}",
                           "body": _when(event), "resource_type": "calendar_event", "resource_id": str(event["id"]),
                           "action_url": f"/calendar?event={event['id']}"} for user_id, event in new])
        row = db.get(PlaceSearchCache, CURSOR_KEY, populate_existing=True)
        if row is None:
            insert_ignore(db, PlaceSearchCache, {"key": CURSOR_KEY, "results": [cursor], "cached_at": now},
                          conflict=("key",))
        else:
            row.results, row.cached_at = [cursor], now
            db.flush()
    return len(new)


def _read_at(read_at: dict, keys) -> object:
    """The time each row's user's calendar was read, as SQL (`CASE user_id WHEN … THEN …`) over (user id, event id)
    keys: one read a user a scan. Bound as the columns' type (UTCDateTime), as a value set on the column is."""
    from sqlalchemy import literal

    from chalicelib.core.db import UTCDateTime

    return case({user_id: literal(read_at[user_id], UTCDateTime())
                 for user_id in {user_id for user_id, _ in keys}}, value=CalendarInvite.user_id)


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
