"""Session 23 (time budgets of the scheduled jobs): the scheduled meetings sync starts no batch once
jobs.SYNC_SECONDS are spent. A batch asks the AI provider about up to ANALYSES_PER_BATCH new notes (each call up to
30 s), and a run's ANALYSES_PER_RUN of them could outlast the function's 300 s (infra/areas.json): a run killed there
kept nothing of its batch in flight, and EventBridge's two retries met the same kill. The run answers `more` and is
due again at once; the next run goes on from the batches committed. The clock (core.timeutil.clock) advances 40 s
per AI call here."""
from __future__ import annotations

from sqlalchemy import func, select

from chalicelib.areas.meetings import jobs
from chalicelib.areas.meetings.models import Meeting, MeetingSyncState
from chalicelib.areas.meetings.service_sync import ANALYSES_PER_BATCH
from chalicelib.core import timeutil
from chalicelib.providers.ai.sandbox import SandboxAI
from chalicelib.providers.meetnotes import sandbox

from .test_sync_progress import _notes, people  # noqa: F401 - the fixture


class Clock:
    now, step = 1000.0, 40.0  # the time an AI call takes

    def __call__(self):
        return self.now


def test_the_scheduled_sync_stops_at_its_budget_and_the_next_run_goes_on(db, people, monkeypatch):  # noqa: F811
    clock, asked = Clock(), []
    monkeypatch.setattr(timeutil, "clock", clock)
    monkeypatch.setattr(jobs, "SYNC_SECONDS", 200, raising=False)
    original = SandboxAI.analyse_meeting

    def analyse(self, **kwargs):
        asked.append((clock.now, kwargs["title"]))
        clock.now += clock.step
        return original(self, **kwargs)

    monkeypatch.setattr(SandboxAI, "analyse_meeting", analyse)
    notes = _notes(4 * ANALYSES_PER_BATCH)
    monkeypatch.setattr(sandbox, "NOTES", notes)

    begun = clock.now
    first = jobs.scheduled_sync()
    batch = ANALYSES_PER_BATCH * clock.step  # 120 s: a second batch starts at 120 s, a third would at 240 s
    assert first.get("more") is True, first
    assert (first["created"], first["remaining"]) == (2 * ANALYSES_PER_BATCH, 2 * ANALYSES_PER_BATCH), first
    starts = [at for at, _ in asked[::ANALYSES_PER_BATCH]]  # each batch's first AI call
    assert starts == [begun, begun + batch] and clock.now == begun + 2 * batch  # none started at 240 s
    assert set(db.scalars(select(Meeting.id))) == {note[0] for note in notes[:2 * ANALYSES_PER_BATCH]}  # committed
    state = db.get(MeetingSyncState, "meetnotes", populate_existing=True)
    assert state.last_synced_at is None  # not complete: due again at once

    asked.clear()
    second = jobs.scheduled_sync()  # goes on with the notes left, none asked about twice
    assert "more" not in second and (second["created"], second["remaining"]) == (2 * ANALYSES_PER_BATCH, 0), second
    assert sorted(title for _, title in asked) == sorted(note[1] for note in notes[2 * ANALYSES_PER_BATCH:])
    assert db.scalar(select(func.count()).select_from(Meeting)) == len(notes)
    assert db.get(MeetingSyncState, "meetnotes", populate_existing=True).last_synced_at is not None
    assert jobs.scheduled_sync() == {"skipped": "not due"}
