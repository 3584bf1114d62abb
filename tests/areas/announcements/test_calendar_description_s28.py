"""An announcement's team-calendar event carries at most 8,000 characters of its content (session 28's provider-limits
audit): the calendar channel sent the whole content (up to 100,000 characters) as the Google event's description,
where Google holds about 8,192 (undocumented by Google; Nylas, "Event Description Limits in Google Calendar": past it
an insert can fail, Google's 400 "A provided value exceeds the allowed size limit"). The chat channel already cut."""
from __future__ import annotations

import json

import pytest
import responses

from tests.areas.announcements.factories import live_team_calendar, make_announcement

API = "https://www.googleapis.com/calendar/v3/calendars/team%40group.calendar.google.com/events"
GOOGLE_DESCRIPTION_MAX = 8192


@pytest.fixture
def live(set_env):
    with live_team_calendar(set_env) as mock:
        yield mock


def test_a_long_announcements_calendar_event_description_fits_google(api, db, exec_user, live):
    memo = ("Agenda for the end-of-year town hall: results, client wins, the new leave policy, Q&A. " * 200).strip()
    assert 10_000 < len(memo) <= 100_000
    announcement = make_announcement(db, author_id=exec_user.id, title="Town hall", content=memo)
    live.add(responses.POST, API, json={"id": "announcementx", "status": "confirmed"})
    answer = api.post(f"/api/announcements/{announcement.id}/distribute", as_=exec_user,
                      json={"calendar": {"date": "2026-12-04"}})
    assert answer.status == 200, answer
    [insert] = [c for c in live.calls if c.request.method == "POST" and c.request.url.startswith(API)]
    description = json.loads(insert.request.body)["description"]
    assert len(description) <= GOOGLE_DESCRIPTION_MAX, f"sent Google a description of {len(description)} characters"
    assert description.endswith("\u2026") and memo.startswith(description[:-1])


def test_a_short_announcement_is_sent_whole(api, db, exec_user, live):
    announcement = make_announcement(db, author_id=exec_user.id, title="Drinks", content="Friday at five.")
    live.add(responses.POST, API, json={"id": "announcementx", "status": "confirmed"})
    answer = api.post(f"/api/announcements/{announcement.id}/distribute", as_=exec_user,
                      json={"calendar": {"date": "2026-12-04"}})
    assert answer.status == 200, answer
    [insert] = [c for c in live.calls if c.request.method == "POST" and c.request.url.startswith(API)]
    assert json.loads(insert.request.body)["description"] == "Friday at five."
