"""The meetings sync makes progress (docs/decisions/meetings.md, "Progress"): one run analyses at most
ANALYSES_PER_RUN new notes, the oldest first, and commits them in batches with the sync state, so a run stopped
part-way keeps what it committed and a large first sync completes over several runs; and a note the provider
answers twice is stored once.

Audit 10 (scheduled jobs): the sync asked the AI provider about every new note before writing anything, so a first
sync of a few hundred notes outlasted the job's 300 s and stored nothing, and every later run started over (and
paid for the same AI calls again)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import func, select

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.areas.meetings.models import Meeting, MeetingActionItem, MeetingAttendee, MeetingSyncState
from chalicelib.areas.meetings.service_sync import ANALYSES_PER_BATCH, ANALYSES_PER_RUN, run_sync
from chalicelib.core.notify import Notification
from chalicelib.providers.ai.sandbox import SandboxAI
from chalicelib.providers.meetnotes import sandbox
from chalicelib.providers.meetnotes.sandbox import SandboxNotes
from tests.factories import make_user

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def people(db):
    return [make_user(db, email=f"0{n}-person@agency.test", name=name)
            for n, name in enumerate(("Alice Able", "Bob Baker", "Cara Cole"))]


def _notes(count):
    """`count` notes six hours apart, two at each time (a date shared across a batch's edge), each with an action
    item for the first attendee: the LOOKBACK (three days) reads a dozen known notes again on each run."""
    return tuple((f"bulk-note-{n:03d}", f"Project sync {n}", START + timedelta(hours=6) * (n // 2), 30,
                  "A catch-up on the project.", "{0}: follow up on point " + str(n), None) for n in range(count))


class Stopped(Exception):
    pass


class Calls(list):
    stop_at: int | None = None

    def stop(self, at: int | None) -> None:
        self.stop_at = at


@pytest.fixture
def analyses(monkeypatch):
    """The titles the AI provider was asked about, in order; `stop_at`: the call that stops the run (the
    function's timeout, as far as a test can play it: an error the sync does not expect)."""
    calls = Calls()
    original = SandboxAI.analyse_meeting

    def analyse(self, **kwargs):
        calls.append(kwargs["title"])
        if len(calls) == calls.stop_at:
            raise Stopped("the function's time is up")
        return original(self, **kwargs)

    monkeypatch.setattr(SandboxAI, "analyse_meeting", analyse)
    return calls


def _count(db, model, *where):
    return db.scalar(select(func.count()).select_from(model).where(*where))


def _effects(db):
    db.expire_all()
    return (_count(db, Meeting), _count(db, Meeting, Meeting.category.is_not(None)), _count(db, MeetingAttendee),
            _count(db, MeetingActionItem), _count(db, ActionItem, ActionItem.source_module == "meetings"),
            _count(db, Notification, Notification.type == "meeting_action_item"))


def test_a_run_stopped_part_way_keeps_the_batches_it_committed(db, people, monkeypatch, analyses):
    notes = _notes(2 * ANALYSES_PER_BATCH + 2)
    monkeypatch.setattr(sandbox, "NOTES", notes)
    analyses.stop(2 * ANALYSES_PER_BATCH + 1)  # the first note of the third batch
    with pytest.raises(Stopped):
        run_sync(force=True)
    kept = 2 * ANALYSES_PER_BATCH
    assert _count(db, Meeting) == kept, "the committed batches are kept"
    assert set(db.scalars(select(Meeting.id))) == {note[0] for note in notes[:kept]}  # the oldest
    assert _count(db, MeetingActionItem) == kept == _count(db, ActionItem, ActionItem.source_module == "meetings")
    state = db.get(MeetingSyncState, "meetnotes", populate_existing=True)
    assert state.last_note_date == notes[kept - 1][2]  # the newest date written
    assert state.last_synced_at is None  # not complete: the schedule runs it again at once

    analyses.stop(None)
    analyses.clear()
    answer = run_sync()  # the schedule: due, although it ran a moment ago
    assert sorted(analyses) == sorted(note[1] for note in notes[kept:]), "only the notes not kept are analysed"
    assert (answer["created"], answer["remaining"]) == (2, 0)
    assert _effects(db)[:2] == (len(notes), len(notes))
    assert run_sync() == {"skipped": "not due"}


def test_a_large_first_sync_completes_over_several_runs_each_bounded(db, people, monkeypatch, analyses):
    total = 2 * ANALYSES_PER_RUN + 5
    notes = _notes(total)
    monkeypatch.setattr(sandbox, "NOTES", notes)
    runs = []
    while True:
        analyses.clear()
        answer = run_sync()  # the schedule: a run that left notes is due again at once
        assert "skipped" not in answer, runs
        assert len(analyses) == answer["created"] <= ANALYSES_PER_RUN, answer
        runs.append(answer)
        if not answer["remaining"]:
            break
        assert len(runs) < 10
    assert [run["created"] for run in runs] == [ANALYSES_PER_RUN, ANALYSES_PER_RUN, 5]
    assert [run["remaining"] for run in runs] == [total - ANALYSES_PER_RUN, 5, 0]
    effects = _effects(db)
    assert effects[:2] == (total, total) and effects[3] == effects[4] == effects[5] == total
    state = db.get(MeetingSyncState, "meetnotes", populate_existing=True)
    assert state.last_note_date == notes[-1][2] and state.last_synced_at is not None
    assert run_sync() == {"skipped": "not due"}

    # run again: one effect (the notes of the last three days read again, updated in place, none analysed)
    analyses.clear()
    again = run_sync(force=True)
    assert analyses == [] and again["created"] == again["action_items"] == again["remaining"] == 0
    assert again["updated"] == again["fetched"] > 0
    assert _effects(db) == effects


def test_a_note_answered_twice_by_the_provider_is_stored_once(db, people, monkeypatch):
    """A provider paging by offset answers a note on two pages when the list moves while it is read; the one
    INSERT ... ON CONFLICT DO UPDATE of both copies failed the whole sync on Postgres (CardinalityViolation)."""
    listed = SandboxNotes.list_notes

    def twice(self, *, since):
        notes = listed(self, since=since)
        return notes + [{**notes[2], "title": "Globex discovery call (edited)"}]

    monkeypatch.setattr(SandboxNotes, "list_notes", twice)
    answer = run_sync(force=True)
    assert (answer["fetched"], answer["created"], answer["remaining"]) == (5, 5, 0)
    assert _count(db, Meeting) == 5
    assert db.get(Meeting, "sandbox-note-3").title == "Globex discovery call (edited)"  # the later copy
    assert _count(db, MeetingActionItem, MeetingActionItem.meeting_id == "sandbox-note-3") == 2
