"""Session 27 (ann27): the calendar channel put the announcement's event on the team calendar with an id Google
chose. A distribution whose answer was lost (a timeout after Google made the event) was recorded `failed`, and the
retry (the distribute route again) made a second event; so did every later distribution to the calendar. Now the
event's id is derived from the announcement's id (Google's client-chosen id, as leave's team-calendar events since
b920fbe): an insert that meets Google's 409 `duplicate` takes the event it names and brings it to what was asked
(a PUT, `status: confirmed`, so that one deleted on Google's side is shown again): one event per announcement."""
from __future__ import annotations

import json
import re

import pytest
import responses
from sqlalchemy import select

from chalicelib.areas.announcements.models import AnnouncementDistribution
from chalicelib.core.errors import GatewayTimeout
from chalicelib.providers.calendar.models import SandboxCalendarEvent
from tests.areas.announcements.factories import live_team_calendar, make_announcement


def _events(db):
    db.expire_all()
    return list(db.scalars(select(SandboxCalendarEvent).where(SandboxCalendarEvent.calendar_id == "team")))


def _distribute(api, user, announcement_id, calendar):
    answer = api.post(f"/api/announcements/{announcement_id}/distribute", as_=user, json={"calendar": calendar})
    assert answer.status == 200, answer
    return answer.json["results"]["calendar"]


def test_a_calendar_event_made_whose_answer_was_lost_is_not_made_again(api, db, exec_user, monkeypatch):
    from chalicelib.providers.calendar.sandbox import SandboxCalendar

    announcement = make_announcement(db, author_id=exec_user.id, title="Town hall")
    asked: list = []

    def answer_lost(self, user_email, calendar_id, event):
        asked.append((user_email, calendar_id, dict(event)))
        raise GatewayTimeout("The calendar did not answer in time")

    monkeypatch.setattr(SandboxCalendar, "insert_event", answer_lost)
    lost = _distribute(api, exec_user, announcement.id, {"date": "2026-12-04"})
    assert lost["status"] == "failed", lost
    # Google made the event it was asked for; only its answer was lost (made here, outside the channel's
    # savepoint, which the sandbox's own write would roll back with the failure)
    monkeypatch.undo()
    SandboxCalendar(db=db).insert_event(*asked[0])
    [made] = _events(db)
    retried = _distribute(api, exec_user, announcement.id, {"date": "2026-12-04"})
    assert retried == {"status": "sent", "external_id": made.id}, retried
    events = _events(db)
    assert [row.id for row in events] == [made.id], f"{len(events)} team calendar events for one announcement"
    recorded = db.execute(select(AnnouncementDistribution.status, AnnouncementDistribution.external_id)
                          .where(AnnouncementDistribution.announcement_id == announcement.id)).all()
    assert sorted(recorded, key=lambda row: row[0]) == [("failed", None), ("sent", made.id)]


def test_distributing_to_the_calendar_again_moves_the_announcements_one_event(api, db, exec_user):
    announcement = make_announcement(db, author_id=exec_user.id, title="Town hall")
    other = make_announcement(db, author_id=exec_user.id, title="Offsite")
    first = _distribute(api, exec_user, announcement.id, {"date": "2026-12-04"})
    theirs = _distribute(api, exec_user, other.id, {"date": "2026-12-04"})
    assert first["status"] == theirs["status"] == "sent" and first["external_id"] != theirs["external_id"]
    again = _distribute(api, exec_user, announcement.id,
                        {"date": "2026-12-10", "start_time": "09:30", "end_time": "10:00"})
    assert again == first, again
    assert sorted(row.id for row in _events(db)) == sorted([first["external_id"], theirs["external_id"]])
    event = db.get(SandboxCalendarEvent, first["external_id"]).event
    assert event["start"] == {"dateTime": "2026-12-10T09:30:00", "timeZone": "Australia/Sydney"}
    assert event["summary"] == "Town hall"
    assert db.get(SandboxCalendarEvent, theirs["external_id"]).event["start"] == {"date": "2026-12-04"}


# ---------------------------------------------------------------- the live calendar (Google), recorded answers

API = "https://www.googleapis.com/calendar/v3/calendars/team%40group.calendar.google.com/events"


@pytest.fixture
def live(set_env):
    with live_team_calendar(set_env) as mock:
        yield mock


def test_google_answering_duplicate_has_the_event_it_holds_brought_to_what_was_asked(api, db, exec_user, live):
    """The id sent is the announcement's; Google's 409 `duplicate` (the event made by the attempt whose answer was
    lost, or one deleted on Google's side, which Google keeps as `cancelled`) is answered by a PUT of that id with
    `status: confirmed`, and the channel is sent with that id."""
    announcement = make_announcement(db, author_id=exec_user.id, title="Town hall")
    live.add(responses.POST, API, status=409, json={"error": {"code": 409, "message": "The requested identifier "
                                                              "already exists.", "errors": [
        {"domain": "global", "reason": "duplicate", "message": "The requested identifier already exists."}]}})
    sent: list = []

    def put_answer(request):
        sent.append(json.loads(request.body))
        return 200, {}, json.dumps({"id": request.url.split("/events/")[1].split("?")[0], "status": "confirmed"})

    live.add_callback(responses.PUT, re.compile(rf"{API}/[a-v0-9]+\?sendUpdates=all"),
                      callback=put_answer, content_type="application/json")
    result = _distribute(api, exec_user, announcement.id, {"date": "2026-12-04"})
    inserted = json.loads(live.calls[1].request.body)
    assert inserted["id"] and inserted["id"].startswith("announcement"), inserted
    assert result == {"status": "sent", "external_id": inserted["id"]}, result
    assert live.calls[2].request.url.startswith(f"{API}/{inserted['id']}?")
    assert sent[0]["status"] == "confirmed" and sent[0]["start"] == {"date": "2026-12-04"}
    assert sent[0]["summary"] == "Town hall"
