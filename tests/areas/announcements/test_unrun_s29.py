"""Session 29 (code no test runs): the announcements area's branches the whole suite left unexecuted. A channel
whose live provider has no destination configured, a team calendar refusing the event (not a duplicate), and a
delete whose calendar was turned off since the announcement went to it."""
from __future__ import annotations

import logging

import responses
from sqlalchemy import select

from chalicelib.areas.announcements.models import Announcement, AnnouncementDistribution
from chalicelib.areas.announcements.service import calendar_event_id
from tests.areas.announcements.factories import live_team_calendar, make_announcement

API = "https://www.googleapis.com/calendar/v3/calendars/team%40group.calendar.google.com/events"


def _distribute(api, user, announcement_id, **channels):
    answer = api.post(f"/api/announcements/{announcement_id}/distribute", as_=user, json=channels)
    assert answer.status == 200, answer
    return answer.json["results"]


def test_a_live_mail_provider_without_an_announcements_address_fails_that_channel(api, db, exec_user, set_env):
    set_env(MAIL_MODE="live", ANNOUNCEMENTS_EMAIL_TO="")
    announcement = make_announcement(db, author_id=exec_user.id)
    results = _distribute(api, exec_user, announcement.id, chat=True, email=True)
    assert results["chat"]["status"] == "sent"
    assert results["email"] == {"status": "failed",
                                "error": "No announcements e-mail address (ANNOUNCEMENTS_EMAIL_TO) is configured"}
    db.expire_all()
    assert sorted(db.execute(select(AnnouncementDistribution.channel, AnnouncementDistribution.status).where(
        AnnouncementDistribution.announcement_id == announcement.id)).all()) == [("chat", "sent"),
                                                                                  ("email", "failed")]


def test_a_team_calendar_refusing_the_event_fails_the_channel_without_an_update(api, db, exec_user, set_env):
    announcement = make_announcement(db, author_id=exec_user.id)
    with live_team_calendar(set_env) as live:
        live.add(responses.POST, API, status=403,
                 json={"error": {"code": 403, "message": "Forbidden",
                                 "errors": [{"domain": "calendar", "reason": "forbiddenForServiceAccounts"}]}})
        results = _distribute(api, exec_user, announcement.id, calendar={"date": "2026-12-04"})
        assert [call.request.method for call in live.calls] == ["POST", "POST"]  # the token, the insert: no PUT
    assert results["calendar"]["status"] == "failed" and results["calendar"]["error"], results


def test_a_delete_after_the_calendar_was_turned_off_logs_the_events_left(api, db, exec_user, set_env, caplog):
    announcement_id = make_announcement(db, author_id=exec_user.id).id
    sent = _distribute(api, exec_user, announcement_id, calendar={"date": "2026-12-04"})["calendar"]
    assert sent["external_id"] == calendar_event_id(announcement_id)
    set_env(CALENDAR_MODE="off")
    with caplog.at_level(logging.ERROR):
        answer = api.delete(f"/api/announcements/{announcement_id}", as_=exec_user)
    assert answer.status == 200 and answer.json == {"ok": True}
    db.expire_all()
    assert db.scalar(select(Announcement.id).where(Announcement.id == announcement_id)) is None
    logged = [r.getMessage() for r in caplog.records if r.name == "wms.announcements"]
    assert logged and "not configured" in logged[0] and sent["external_id"] in logged[0], caplog.text


def test_a_timed_event_late_on_the_last_day_west_of_utc_is_sent(api, db, exec_user, set_env):
    """9999-12-31 at 22:00 in New York is past year 9999 in UTC: the daylight-saving check cannot compute it and
    takes the time as happening (no daylight saving is known that far out); the event is sent, never a 500."""
    set_env(ORG_TIMEZONE="America/New_York")
    announcement_id = make_announcement(db, author_id=exec_user.id).id
    results = _distribute(api, exec_user, announcement_id,
                          calendar={"date": "9999-12-31", "start_time": "22:00", "end_time": "23:00"})
    assert results["calendar"]["status"] == "sent", results


def test_a_calendar_channel_without_a_date_is_400_naming_it(api, db, exec_user):
    announcement_id = make_announcement(db, author_id=exec_user.id).id
    for calendar in ({}, {"date": None}, {"start_time": "10:00", "end_time": "11:00"}):
        answer = api.post(f"/api/announcements/{announcement_id}/distribute", as_=exec_user, json={"calendar": calendar})
        assert answer.status == 400, (calendar, answer)
        assert [d["field"] for d in answer.json["details"]] == ["calendar.date"], (calendar, answer.json)
