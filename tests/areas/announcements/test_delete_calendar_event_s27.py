"""Session 27 (anndel27): since 63dc4da an announcement's team-calendar event has an id derived from the
announcement (`service.calendar_event_id`), but deleting the announcement never removed that event: the team
calendar kept showing an announcement that no longer exists. Now, after the delete commits, the event is deleted on
the team calendar when the announcement's distribution rows name the calendar channel; Google's 404/410 is "already
gone"; any other failure is logged and the delete still answers its success (the announcement is gone)."""
from __future__ import annotations

import logging

import pytest
import responses
from sqlalchemy import select

from chalicelib.areas.announcements.models import Announcement
from chalicelib.areas.announcements.service import calendar_event_id
from chalicelib.providers.calendar.base import CalendarError
from chalicelib.providers.calendar.models import SandboxCalendarEvent
from tests.areas.announcements.factories import live_team_calendar, make_announcement


def _team_events(db):
    db.expire_all()
    return sorted(db.scalars(select(SandboxCalendarEvent.id).where(SandboxCalendarEvent.calendar_id == "team")))


def _distribute(api, user, announcement_id, **channels):
    answer = api.post(f"/api/announcements/{announcement_id}/distribute", as_=user, json=channels)
    assert answer.status == 200, answer
    return answer.json["results"]


def _delete(api, user, announcement_id):
    answer = api.delete(f"/api/announcements/{announcement_id}", as_=user)
    assert answer.status == 200, answer
    assert answer.json == {"ok": True}


def _gone(db, announcement_id):
    db.expire_all()
    return db.scalar(select(Announcement.id).where(Announcement.id == announcement_id)) is None


def test_deleting_an_announcement_removes_its_team_calendar_event(api, db, exec_user):
    announcement = make_announcement(db, author_id=exec_user.id, title="Town hall")
    other = make_announcement(db, author_id=exec_user.id, title="Offsite")
    sent = _distribute(api, exec_user, announcement.id, calendar={"date": "2026-12-04"})["calendar"]
    theirs = _distribute(api, exec_user, other.id, calendar={"date": "2026-12-04"})["calendar"]
    assert sent["external_id"] == calendar_event_id(announcement.id)
    assert _team_events(db) == sorted([sent["external_id"], theirs["external_id"]])
    _delete(api, exec_user, announcement.id)
    assert _gone(db, announcement.id)
    assert _team_events(db) == [theirs["external_id"]], "the deleted announcement's event is still on the calendar"


def test_an_event_made_by_a_distribution_whose_answer_was_lost_is_removed_too(api, db, exec_user, monkeypatch):
    """A calendar row recorded `failed` may stand for an event Google made (a lost answer): its derived id is
    deleted as well."""
    from chalicelib.core.errors import GatewayTimeout
    from chalicelib.providers.calendar.sandbox import SandboxCalendar

    announcement = make_announcement(db, author_id=exec_user.id)
    asked: list = []

    def answer_lost(self, user_email, calendar_id, event):
        asked.append((user_email, calendar_id, dict(event)))
        raise GatewayTimeout("The calendar did not answer in time")

    monkeypatch.setattr(SandboxCalendar, "insert_event", answer_lost)
    assert _distribute(api, exec_user, announcement.id, calendar={"date": "2026-12-04"})["calendar"]["status"] == \
        "failed"
    monkeypatch.undo()
    SandboxCalendar(db=db).insert_event(*asked[0])  # Google made it; only its answer was lost
    assert _team_events(db) == [calendar_event_id(announcement.id)]
    _delete(api, exec_user, announcement.id)
    assert _team_events(db) == []


def test_no_calendar_call_when_the_announcement_never_went_to_the_calendar(api, db, exec_user, monkeypatch):
    from chalicelib.providers.calendar.sandbox import SandboxCalendar

    announcement = make_announcement(db, author_id=exec_user.id)
    assert _distribute(api, exec_user, announcement.id, chat=True)["chat"]["status"] == "sent"
    never = make_announcement(db, author_id=exec_user.id)
    asked: list = []
    monkeypatch.setattr(SandboxCalendar, "delete_event", lambda self, *args: asked.append(args))
    _delete(api, exec_user, announcement.id)
    _delete(api, exec_user, never.id)
    assert asked == []


def test_an_event_already_gone_is_not_a_failure(api, db, exec_user, caplog):
    announcement = make_announcement(db, author_id=exec_user.id)
    sent = _distribute(api, exec_user, announcement.id, calendar={"date": "2026-12-04"})["calendar"]
    db.delete(db.get(SandboxCalendarEvent, sent["external_id"]))  # removed by hand on the calendar
    db.flush()
    with caplog.at_level(logging.WARNING):
        _delete(api, exec_user, announcement.id)
    assert _gone(db, announcement.id)
    assert not [r for r in caplog.records if r.name.startswith("wms.") and r.levelno >= logging.WARNING], caplog.text


@pytest.mark.parametrize("failure", [CalendarError("Calendar provider request failed", detail="Backend Error"),
                                     RuntimeError("boom")])
def test_a_calendar_failure_still_answers_the_deletes_success(api, db, exec_user, monkeypatch, caplog, failure):
    from chalicelib.providers.calendar.sandbox import SandboxCalendar

    announcement = make_announcement(db, author_id=exec_user.id)
    sent = _distribute(api, exec_user, announcement.id, calendar={"date": "2026-12-04"})["calendar"]

    def fails(self, *args):
        raise failure

    monkeypatch.setattr(SandboxCalendar, "delete_event", fails)
    with caplog.at_level(logging.ERROR):
        _delete(api, exec_user, announcement.id)
    assert _gone(db, announcement.id)
    assert _team_events(db) == [sent["external_id"]]  # left: the log names it for staff to remove
    logged = [r for r in caplog.records if r.name == "wms.announcements"]
    assert logged and sent["external_id"] in logged[0].getMessage(), caplog.text


# ---------------------------------------------------------------- the live calendar (Google), recorded answers

API = "https://www.googleapis.com/calendar/v3/calendars/team%40group.calendar.google.com/events"


@pytest.fixture
def live(set_env):
    with live_team_calendar(set_env) as mock:
        yield mock


def test_google_answering_gone_for_the_event_is_already_deleted(api, db, exec_user, live, caplog):
    """The live delete names the derived id on the team calendar; Google's 410 (an event deleted before) is not
    logged as a failure."""
    from datetime import datetime, timezone

    from chalicelib.areas.announcements.models import AnnouncementDistribution

    announcement = make_announcement(db, author_id=exec_user.id)
    event_id = calendar_event_id(announcement.id)
    db.add(AnnouncementDistribution(announcement_id=announcement.id, channel="calendar", status="sent",
                                    external_id=event_id, sent_by=exec_user.id,
                                    sent_at=datetime.now(timezone.utc)))
    db.flush()
    live.add(responses.DELETE, f"{API}/{event_id}", status=410,
             json={"error": {"code": 410, "message": "Resource has been deleted",
                             "errors": [{"domain": "global", "reason": "deleted"}]}})
    with caplog.at_level(logging.WARNING):
        _delete(api, exec_user, announcement.id)
    assert [call.request.method for call in live.calls] == ["POST", "DELETE"]
    assert not [r for r in caplog.records if r.name.startswith("wms.") and r.levelno >= logging.WARNING], caplog.text
