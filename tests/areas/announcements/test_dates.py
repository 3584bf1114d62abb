"""Dates and times of announcements: the calendar channel's timed event in ORG_TIMEZONE (Australia/Sydney in the
tests) around daylight-saving changes (docs/decisions/announcements.md, "Distribution targets")."""
from sqlalchemy import func, select

from chalicelib.areas.announcements.models import AnnouncementDistribution
from chalicelib.providers.calendar.models import SandboxCalendarEvent
from tests.areas.announcements.factories import make_announcement


def _distribute(api, user, announcement, calendar):
    return api.post(f"/api/announcements/{announcement.id}/distribute", as_=user, json={"calendar": calendar})


def test_a_time_the_clocks_skip_is_refused(api, db, exec_user):
    """Sydney's clocks go from 02:00 to 03:00 on 4 October 2026: 02:30 that day never happens on a wall clock, so
    an event from 02:30 would be put at another time than the one asked (the calendar moves it an hour)."""
    announcement = make_announcement(db)
    for times in ({"start_time": "02:30", "end_time": "04:00"}, {"start_time": "01:30", "end_time": "02:15"}):
        answer = _distribute(api, exec_user, announcement, {"date": "2026-10-04", **times})
        assert answer.status == 400, answer
        assert answer.json["details"][0]["field"].startswith("calendar")
    assert db.scalar(select(func.count()).select_from(AnnouncementDistribution)
                     .where(AnnouncementDistribution.announcement_id == announcement.id)) == 0


def test_times_around_the_clock_changes_that_happen_are_kept(api, db, exec_user):
    announcement = make_announcement(db)
    # the day the clocks skip an hour, outside it; the day they repeat one (5 April 2026), inside it: it happens
    for calendar in ({"date": "2026-10-04", "start_time": "01:30", "end_time": "03:30"},
                     {"date": "2026-04-05", "start_time": "02:15", "end_time": "02:45"}):
        answer = _distribute(api, exec_user, announcement, calendar)
        assert answer.status == 200 and answer.json["results"]["calendar"]["status"] == "sent", answer
        event = db.get(SandboxCalendarEvent, answer.json["results"]["calendar"]["external_id"]).event
        assert event["start"]["dateTime"] == f"{calendar['date']}T{calendar['start_time']}:00"
