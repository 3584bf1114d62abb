"""Concurrent requests of the communications areas (issue 18) against a real HTTP server on Postgres (the
server and helpers of test_concurrency.py): meeting-notes syncs started together import each note once;
reads of one announcement keep one receipt; settings saves and place searches leave one row."""
from __future__ import annotations

import secrets
import time

from sqlalchemy import func, select

from tests.concurrency.test_concurrency import THREADS, _all_at_once, _call, _token
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def _count(sessions, model, *where) -> int:
    with sessions() as db:
        return db.scalar(select(func.count()).select_from(model).where(*where))


def test_concurrent_meeting_syncs_import_each_note_once(live):
    from chalicelib.areas.action_items.models import ActionItem
    from chalicelib.areas.meetings.models import Meeting, MeetingActionItem
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"0-exec-{secrets.token_hex(4)}@agency.test")
        db.commit()
    token = _token(user)
    results = _all_at_once([(lambda: _call(base, "POST", "/api/admin/connections/meetnotes/sync", token))] * 10)
    assert [status for status, _ in results] == [202] * 10, results
    deadline = time.monotonic() + 20
    while _count(sessions, Meeting) < 5 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _count(sessions, Meeting) == 5
    items = _count(sessions, MeetingActionItem)
    assigned = _count(sessions, MeetingActionItem, MeetingActionItem.assignee_id.is_not(None))
    assert items == 6  # the sandbox notes' action items, once each
    assert _count(sessions, ActionItem, ActionItem.source_module == "meetings") == assigned
    status, body = _call(base, "GET", "/api/admin/connections/meetnotes/status", token)
    assert status == 200 and body["total_notes"] == 5 and body["last_synced_at"]


def test_concurrent_reads_settings_and_place_searches(live):
    from chalicelib.areas.announcements.models import Announcement, AnnouncementReceipt
    from chalicelib.areas.calendar.models import CalendarSettings, PlaceSearchCache
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        announcement = Announcement(title="Hello", content="World", category="company", author_id=None)
        db.add(announcement)
        db.commit()
    token = _token(user)
    reads = _all_at_once([(lambda: _call(base, "POST", f"/api/announcements/{announcement.id}/read", token))] * THREADS)
    assert [status for status, _ in reads] == [200] * THREADS, reads
    assert _count(sessions, AnnouncementReceipt, AnnouncementReceipt.announcement_id == announcement.id) == 1

    saves = _all_at_once([(lambda i=i: _call(base, "PUT", "/api/calendar/settings", token,
                                             {"default_view": ("month", "week", "day")[i % 3]}))
                          for i in range(THREADS)])
    assert [status for status, _ in saves] == [200] * THREADS, saves
    assert _count(sessions, CalendarSettings, CalendarSettings.user_id == user.id) == 1

    query = f"sydney {secrets.token_hex(2)}"[:6]  # "sydney": the sandbox gazetteer answers it
    searches = _all_at_once([(lambda: _call(base, "GET", f"/api/calendar/places?q={query}&tz=Australia/Sydney",
                                            token))] * THREADS)
    assert [status for status, _ in searches] == [200] * THREADS, searches
    assert len({str(body) for _, body in searches}) == 1
    assert _count(sessions, PlaceSearchCache, PlaceSearchCache.key == "au|sydney") == 1
