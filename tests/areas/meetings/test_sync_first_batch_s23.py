"""Session 23 review: the meetings sync's budget counts the provider's listing, so it was checked before the first
batch too (core.timeutil.in_batches always runs its first): a listing that took the budget made every run stop with
no batch written and `more`, forever (the sync state never moved, so the next listing was as long). The first batch
always runs now."""
from sqlalchemy import func, select

from chalicelib.areas.meetings import jobs
from chalicelib.areas.meetings.models import Meeting
from chalicelib.areas.meetings.service_sync import ANALYSES_PER_BATCH
from chalicelib.core import timeutil
from chalicelib.providers.meetnotes import sandbox

from tests.areas.meetings.test_sync_progress import _notes, people  # noqa: F401 - the fixture


class Clock:
    now = 1000.0

    def __call__(self):
        return self.now


def test_a_slow_listing_makes_no_progress_ever(db, people, monkeypatch):  # noqa: F811
    clock = Clock()
    monkeypatch.setattr(timeutil, "clock", clock)
    monkeypatch.setattr(jobs, "SYNC_SECONDS", 180, raising=False)
    monkeypatch.setattr(sandbox, "NOTES", _notes(ANALYSES_PER_BATCH))
    original = sandbox.SandboxNotes.list_notes

    def list_notes(self, **kwargs):
        clock.now += 181  # a long paged listing (a first sync of a large account)
        return original(self, **kwargs)

    monkeypatch.setattr(sandbox.SandboxNotes, "list_notes", list_notes)
    answers = [jobs.scheduled_sync() for _ in range(3)]
    created = db.scalar(select(func.count()).select_from(Meeting))
    assert created > 0, f"three runs, no meeting written: {answers}"
