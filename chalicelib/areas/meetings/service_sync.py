"""The meetings sync and the AI analysis.

The sync pulls the notes dated since three days before the newest one it wrote (all on the first run) from the
meeting-notes provider, page by page, with no transaction open, and keeps one note per id. It takes them oldest
first and handles at most ANALYSES_PER_RUN new ones a run, in batches: for each batch it asks the AI provider to
categorise each new note and extract its action items (no transaction open); then, holding the `meetings-sync`
lock (a transaction-scoped advisory lock), upserts the meetings by note id, replaces their attendees (resolved
from e-mail to active users), adds the action items of the notes that were new under the lock, raises action
centre items for the assigned ones (source_module `meetings`), notifies their assignees, advances the sync state
and commits. A run stopped part-way keeps its committed batches; the next run goes on from there. Run twice, or
twice at once: the second run changes nothing new (the lock and the upsert: never a duplicate).

A whole run holds a run-level lock (`_run_lock`: a session-level advisory lock, on Postgres) from its start to its
end; a run that finds it held skips at once (`{"skipped": "another sync is running"}`) rather than waiting: two
runs at once (one killed at its timeout meeting the next tick and Lambda's retry) each paid the AI provider for the
same new notes (session 22's retries audit).
"""
from __future__ import annotations

import logging
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Iterator

from sqlalchemy import delete, func, or_, select

from chalicelib.core.context import job_context
from chalicelib.core.errors import DomainError
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_rows, lock_key
from chalicelib.core.models import User
from chalicelib.core.spelling import email_key

from .models import Meeting, MeetingActionItem, MeetingAttendee, MeetingSyncState

log = logging.getLogger("wms.meetings")
PROVIDER = "meetnotes"
# each sync asks again for the notes dated up to this long before the newest it saw: a long meeting's note is
# finished after a later short meeting's, and the provider filters by meeting date (it was never imported)
LOOKBACK = timedelta(days=3)
# one run analyses at most this many new notes, the oldest first (an AI call is up to 30 s; the job's function has
# 300 s, the admin sync's 30 s), and writes them in batches of ANALYSES_PER_BATCH new notes (NOTES_PER_BATCH notes
# in all), each committed with the sync state: a run stopped part-way keeps its batches, the next one goes on
ANALYSES_PER_RUN = 20
ANALYSES_PER_BATCH = 3
NOTES_PER_BATCH = 200
# the run-level lock (session 22): held from a run's start to its end on a connection of its own; its key is not
# the write lock's (`meetings-sync`), which a run takes per batch on its unit of work's connection
RUN_LOCK = "meetings-sync-run"
MEETING_COLUMNS = ("title", "summary", "meeting_date", "duration_minutes", "organizer_email", "action_items_text")


def _analyse(note: dict) -> dict | None:
    """The AI analysis of one note, or None when the AI provider fails or is not configured (logged; the
    meeting is kept uncategorised and can be re-analysed)."""
    from chalicelib.providers.ai import get_ai

    try:
        return get_ai().analyse_meeting(title=note["title"], summary=note.get("overview") or "",
                                        action_items=note.get("action_items") or "", attendees=note["attendees"])
    except DomainError as exc:
        log.warning("meeting analysis failed for %s: %s", note["id"], exc.message)
        return None


def _upsert_meetings(db, rows: list[dict]) -> None:
    """One INSERT ... ON CONFLICT (id) DO UPDATE of the provider's fields (category and match are kept)."""
    if not rows:
        return
    if db.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    stmt = insert(Meeting).values(rows)
    changed = or_(*(getattr(Meeting, name).is_distinct_from(getattr(stmt.excluded, name)) for name in MEETING_COLUMNS))
    db.execute(stmt.on_conflict_do_update(index_elements=["id"], where=changed, set_={
        **{name: getattr(stmt.excluded, name) for name in MEETING_COLUMNS}, "updated_at": stmt.excluded.updated_at}))


def _address(value) -> str | None:
    """A note's organiser address as kept: without the white space a provider may send around it, lower-cased and
    composed (core.spelling.email_key, as the attendees' are, and as admin stores users': a provider may spell
    an accent decomposed), at most the column's 320 characters; None when blank. The
    organiser sees the meeting by it (queries.visible compares it with their own address): " Pat@Agency.test " hid
    the meeting from Pat (session 32)."""
    return email_key(value)[:320] or None


def _users_by_email(db, emails) -> dict[str, str]:
    """`{email_key: user id}` of the active users these addresses name. The users' addresses are asked for composed
    and as sent (lower-cased): one stored before session 32 may be kept decomposed (no migration rewrote them); each
    found is keyed by its composed form (one statement)."""
    keys = {email_key(email) for email in emails} - {""}
    if not keys:
        return {}
    asked = sorted(keys | {email.strip().lower() for email in emails if isinstance(email, str) and email.strip()})
    return {email_key(email): user_id for email, user_id in db.execute(
        select(User.email, User.id).where(func.lower(User.email).in_(asked), User.is_active.is_(True)))}


def _add_action_items(ctx, analyses: dict[str, dict], users: dict[tuple[str, str], str], titles: dict[str, str]) -> int:
    """The analysed action items of these meetings, their action centre items and the assignees'
    notifications: a fixed number of statements whatever their number. `users`: `{(meeting id, lower-cased e-mail):
    user id}` of each meeting's own attendees who are active users, so that an item goes only to an attendee of its
    meeting, who reads it (session 25: one map for the whole batch gave an item to an attendee of another meeting)."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    from chalicelib.areas.action_items import service as action_items_service

    rows = []
    for meeting_id, analysis in analyses.items():
        for position, item in enumerate(analysis["action_items"]):
            rows.append({"meeting_id": meeting_id, "position": position, "text": item["text"], "status": "pending",
                         "assignee_id": users.get((meeting_id, email_key(item["assignee_email"]))),
                         "source": "ai"})
    rows = insert_rows(ctx.db, MeetingActionItem, rows)
    assigned = [row for row in rows if row["assignee_id"]]
    action_items_service.create_sourced_items(ctx, [
        {"title": row["text"], "assigned_to": row["assignee_id"], "source_id": row["id"],
         "description": f"From the meeting: {titles.get(row['meeting_id'], '')}"} for row in assigned],
        source_module="meetings", source_type="meeting_action_item")
    # the notice's resource is the action item it tells of (its id fits; a meeting's, the provider's note id of up
    # to 100 characters, does not), so each item is its own notice; the link opens the meeting for an assignee who
    # may read meetings, and the title names it only to them (`_told`: one permission lookup for the batch)
    readers = _readers(ctx.db, [row["assignee_id"] for row in assigned])
    notify_many(ctx, [{"user_id": row["assignee_id"], "type": "meeting_action_item",
                       "resource_type": "meeting_action_item", "resource_id": row["id"],
                       **_told(readers, row, titles)} for row in assigned])
    return len(rows)


def _readers(db, user_ids) -> dict[str, tuple[bool, bool]]:
    """`{user_id: (meetings:view, action-centre:view)}` of these assignees, in one statement whatever their number
    (core.auth.principals_of). An assignee is an attendee of the item's meeting (`users`), so `meetings:view` is
    the whole check that the meeting opens for them (`queries.visible`: the meetings they attended)."""
    from chalicelib.core.auth import principals_of

    return {user_id: (principal.can("meetings", "view"), principal.can("action-centre", "view"))
            for user_id, principal in principals_of(db, list(dict.fromkeys(user_ids))).items()}


def _told(readers: dict[str, tuple[bool, bool]], row: dict, titles: dict[str, str]) -> dict:
    """The notice's title and link for its assignee (session 26, links audit): the meeting and the item, linked
    to the meeting, only to one who may read meetings; any other is told nothing of either, linked to the action
    centre (where the item is mirrored) when they may open it, else with no link."""
    meetings, centre = readers.get(row["assignee_id"], (False, False))
    if meetings:
        return {"title": f"Action item from {titles.get(row['meeting_id'], 'a meeting')}: {row['text']}",
                "action_url": f"/meetings/{row['meeting_id']}"}
    return {"title": "You were given an action item from a meeting", "action_url": "/action-centre" if centre else None}


NOTE_ID_MAX = 100  # meetings.id


def _storable(notes: list[dict]) -> list[dict]:
    """The notes whose id fits the meetings' key; another (odd provider data) is logged and left out, so that
    one note cannot fail the whole sync."""
    kept = [note for note in notes if len(str(note["id"])) <= NOTE_ID_MAX]
    if len(kept) < len(notes):
        log.warning("meeting notes with an id over %d characters left out: %d", NOTE_ID_MAX, len(notes) - len(kept))
    return kept


def _unique(notes: list[dict]) -> list[dict]:
    """One note per id, the later copy (a provider paging by offset can answer a note on two pages; two rows of
    one id in the one INSERT ... ON CONFLICT DO UPDATE failed the whole sync on Postgres)."""
    by_id: dict[str, dict] = {}
    for note in notes:
        by_id[note["id"]] = note
    return list(by_id.values())


def _oldest_first(notes: list[dict]) -> list[dict]:
    """By date then id; undated notes first (they never move the window, so they are not left behind it)."""
    return sorted(notes, key=lambda note: (0, note["id"]) if note.get("date") is None else (1, note["date"], note["id"]))


def _plan(notes: list[dict], known: set[str]) -> tuple[list[list[dict]], int]:
    """This run's batches, a prefix of `notes` (oldest first), and the number of new notes left for the next run.

    The prefix ends before the first new note past ANALYSES_PER_RUN: every note left (new or known) is dated at or
    after the newest one written, so the next run, which asks from LOOKBACK before that date, reads it again. A
    batch holds at most ANALYSES_PER_BATCH new notes and NOTES_PER_BATCH notes. There is always one batch (maybe
    empty): it records the sync state."""
    batches: list[list[dict]] = []
    batch: list[dict] = []
    new_in_batch = analysed = remaining = 0
    for index, note in enumerate(notes):
        new = note["id"] not in known
        if new and analysed == ANALYSES_PER_RUN:
            remaining = sum(1 for rest in notes[index:] if rest["id"] not in known)
            break
        if (new and new_in_batch == ANALYSES_PER_BATCH) or len(batch) == NOTES_PER_BATCH:
            batches.append(batch)
            batch, new_in_batch = [], 0
        batch.append(note)
        if new:
            new_in_batch += 1
            analysed += 1
    if batch or not batches:
        batches.append(batch)
    return batches, remaining


def run_sync(*, force: bool = False, seconds: float | None = None) -> dict:
    """One sync. Without `force` (the schedule) it runs only when enabled and due (sync_interval_minutes
    after the last complete one). Answers what it did; `remaining`: the new notes left for the next run. A run
started while another holds the run lock (`_run_lock`) skips: `{"skipped": "another sync is running"}`. `seconds`
(the scheduled job's budget, jobs.SYNC_SECONDS, counted from the run's start): no batch is started once they are
spent; the answer says `more` (and counts the new notes of the batches not started in `remaining`), and the sync is
not complete, so the next run is due at once and goes on."""
    from chalicelib.core.settings import get_settings
    from chalicelib.providers.meetnotes import get_meetnotes, is_configured

    settings = get_settings()
    if not force and (not settings.meetnotes_sync_enabled or not is_configured()):
        return {"skipped": "sync disabled or meeting notes not configured"}
    with _run_lock() as held:
        if not held:
            return {"skipped": "another sync is running"}
        return _run(force=force, settings=settings, get_meetnotes=get_meetnotes, seconds=seconds)


@contextmanager
def _run_lock() -> Iterator[bool]:
    """Whether this run holds the run-level lock (yields False when another run does): `pg_try_advisory_lock`, a
    session-level lock that does not wait, on a connection of its own held for the run (the run commits in batches,
    so a transaction-scoped lock would not cover it), let go at the end; a run killed at its timeout loses its
    connection and the lock with it. SQLite (development) has no advisory locks: always held there (its writers
    are serialised; two runs at once may both analyse a note, as before)."""
    from chalicelib.core.db import get_engine

    engine = get_engine()
    if engine.dialect.name != "postgresql":
        yield True
        return
    key = func.hashtextextended(RUN_LOCK, 0)
    connection = engine.connect()
    held = False
    try:
        held = bool(connection.scalar(select(func.pg_try_advisory_lock(key))))
        connection.commit()  # the lock is the session's: no transaction stays open for the run
        yield held
    finally:
        try:
            if held:
                connection.scalar(select(func.pg_advisory_unlock(key)))
                connection.commit()
        except Exception:  # noqa: BLE001 - a connection that cannot let go is closed for good: the lock goes with it
            log.exception("meetings sync: the run lock could not be let go")
            connection.invalidate()
        finally:
            connection.close()


def _run(*, force: bool, settings, get_meetnotes, seconds: float | None = None) -> dict:
    from chalicelib.core.timeutil import TimeBudget

    budget = TimeBudget(seconds) if seconds is not None else None
    started = utcnow()
    with job_context() as ctx:
        db = ctx.db
        state = db.get(MeetingSyncState, PROVIDER)
        if not force and state and state.last_synced_at and \
                started - state.last_synced_at < timedelta(minutes=settings.meetnotes_sync_interval_minutes):
            return {"skipped": "not due"}
        since = state.last_note_date - LOOKBACK if state and state.last_note_date else None
        provider = get_meetnotes(db=db)
        ctx.release_connection()
        # paged by the adapter; no transaction is open
        notes = _oldest_first(_unique(_storable(provider.list_notes(since=since))))
        ids = [note["id"] for note in notes]
        known = set(db.scalars(select(Meeting.id).where(Meeting.id.in_(ids)))) if ids else set()
    batches, remaining = _plan(notes, known)
    answer = {"fetched": len(notes), "created": 0, "updated": 0, "action_items": 0}
    for number, batch in enumerate(batches):
        # this batch and the later ones are the next run's; the first always runs (the listing, counted in the
        # budget, may have spent it: a run that wrote nothing would leave the next one the same listing)
        if number and budget is not None and budget.spent():
            left = sum(1 for rest in batches[number:] for note in rest if note["id"] not in known)
            return {**answer, "remaining": remaining + left, "more": True}
        done = _sync_batch(batch, complete=not remaining and number == len(batches) - 1)
        for key, value in done.items():
            answer[key] += value
    return {**answer, "remaining": remaining}


def _sync_batch(notes: list[dict], *, complete: bool) -> dict:
    """One batch in its own unit of work (committed at its end, so a run stopped later keeps it): the AI analysis
    of its new notes with no transaction open, then, under the `meetings-sync` lock, its writes (a fixed number
    of statements) and the sync state: `last_note_date` the newest date written, `last_synced_at` only when
    `complete` (the run's last batch, nothing left), so that a run that left notes is due again at once."""
    with job_context() as ctx:
        db = ctx.db
        ids = [note["id"] for note in notes]
        # read again: a concurrent run may have written some of them since this run's plan (no second AI call)
        known = set(db.scalars(select(Meeting.id).where(Meeting.id.in_(ids)))) if ids else set()
        ctx.release_connection()
        analyses = {note["id"]: _analyse(note) for note in notes if note["id"] not in known}

        lock_key(db, "meetings-sync")  # writes are serialised; a concurrent run waits here, then adds nothing
        known = set(db.scalars(select(Meeting.id).where(Meeting.id.in_(ids)))) if ids else set()
        now = utcnow()
        _upsert_meetings(db, [{"id": note["id"], "title": (note["title"] or "Untitled meeting")[:500],
                               "summary": note.get("overview"), "meeting_date": note.get("date"),
                               "duration_minutes": note.get("duration"),
                               "organizer_email": _address(note.get("organizer_email")),
                               "action_items_text": note.get("action_items"), "created_at": now, "updated_at": now}
                              for note in notes])
        users = _users_by_email(db, [a["email"] for note in notes for a in note["attendees"]])
        if ids:
            db.execute(delete(MeetingAttendee).where(MeetingAttendee.meeting_id.in_(ids)))
        attendees = {}
        for note in notes:
            for attendee in note["attendees"]:
                email = email_key(attendee["email"])  # composed, as a user's is stored (session 32)
                attendees[(note["id"], email)] = {
                    "meeting_id": note["id"], "email": email[:320],
                    "name": (attendee.get("name") or None) and attendee["name"][:200],
                    "user_id": users.get(email)}
        insert_rows(db, MeetingAttendee, list(attendees.values()))
        fresh = {meeting_id: analysis for meeting_id, analysis in analyses.items()
                 if analysis is not None and meeting_id not in known}
        _categorise(db, fresh, now)
        titles = {note["id"]: note["title"] for note in notes}
        assignees = {key: row["user_id"] for key, row in attendees.items() if row["user_id"]}
        added = _add_action_items(ctx, {k: v for k, v in fresh.items() if v["action_items"]}, assignees, titles)
        newest = max((note["date"] for note in notes if note.get("date")), default=None)
        # read again under the lock: a first run that finished while this one asked the provider has made it
        state = db.get(MeetingSyncState, PROVIDER, populate_existing=True)
        if state is None:
            db.add(MeetingSyncState(provider=PROVIDER, last_synced_at=now if complete else None, last_note_date=newest))
        else:
            if complete:
                state.last_synced_at = now
            if newest and (state.last_note_date is None or newest > state.last_note_date):
                state.last_note_date = newest
        db.flush()
    return {"created": len([i for i in ids if i not in known]), "updated": len([i for i in ids if i in known]),
            "action_items": added}


def _categorise(db, analyses: dict[str, dict], now: datetime) -> None:
    """Each meeting's category: one UPDATE per category (at most seven), never one per meeting."""
    from sqlalchemy import update

    by_category: dict[str, list[str]] = {}
    for meeting_id, analysis in analyses.items():
        by_category.setdefault(analysis["category"], []).append(meeting_id)
    for category, meeting_ids in by_category.items():
        db.execute(update(Meeting).where(Meeting.id.in_(meeting_ids)).values(category=category, analysed_at=now)
                   .execution_options(synchronize_session=False))


def analyse_meeting(meeting_id: str) -> dict:
    """Re-categorise one meeting; when it has no action items yet, add the extracted ones (and their action
    centre items). The AI call runs with no transaction open."""
    with job_context() as ctx:
        db = ctx.db
        meeting = db.get(Meeting, meeting_id)
        if meeting is None:
            return {"analysed": False}
        stored = db.scalars(select(MeetingAttendee).where(MeetingAttendee.meeting_id == meeting_id)).all()
        note = {"id": meeting.id, "title": meeting.title, "overview": meeting.summary or "",
                "action_items": meeting.action_items_text or "",
                "attendees": [{"email": a.email, "name": a.name} for a in stored]}
        ctx.release_connection()
        analysis = _analyse(note)
        if analysis is None:
            return {"analysed": False}
        lock_key(db, "meeting-analysis", meeting_id)
        now = utcnow()
        _categorise(db, {meeting_id: analysis}, now)
        has_items = db.scalar(select(func.count()).select_from(MeetingActionItem)
                              .where(MeetingActionItem.meeting_id == meeting_id))
        added = 0
        if not has_items and analysis["action_items"]:
            # the meeting's attendees as stored, active users, as the sync matches them: an item the AI gives to
            # someone else stays unassigned (an employee reads the meetings whose attendee rows name them: one who
            # became a user since the sync is not one of them)
            active = set(db.scalars(select(User.id).where(
                User.id.in_([a.user_id for a in stored if a.user_id]), User.is_active.is_(True)))) \
                if any(a.user_id for a in stored) else set()
            users = {(meeting_id, email_key(a.email)): a.user_id for a in stored if a.user_id in active}
            added = _add_action_items(ctx, {meeting_id: analysis}, users, {meeting_id: note["title"]})
    return {"analysed": True, "category": analysis["category"], "action_items": added}


def analyse_after_commit(meeting_id: str) -> None:
    try:
        analyse_meeting(meeting_id)
    except Exception:  # noqa: BLE001 - after the response: logged, the meeting can be re-analysed again
        log.exception("meeting re-analysis failed for %s", meeting_id)


def sync_after_commit() -> None:
    try:
        run_sync(force=True)
    except Exception:  # noqa: BLE001 - after the response: logged; the schedule runs it again
        log.exception("meetings sync failed")
