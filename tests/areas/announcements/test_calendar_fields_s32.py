"""Session 32, audit "error bodies that name the wrong field": the calendar channel's times are checked field by
field, a 400 naming the time at fault as the core names a nested field (`calendar.end_time`); a model validator
named the whole object, `calendar`, for a start_time alone, an end before the start or a time the clocks skip."""
from tests.areas.announcements.factories import make_announcement


def _fields(api, user, announcement, calendar):
    answer = api.post(f"/api/announcements/{announcement.id}/distribute", as_=user, json={"calendar": calendar})
    assert answer.status == 400, answer
    return [d["field"] for d in answer.json["details"]]


def test_each_time_problem_names_its_time(api, db, exec_user):
    announcement = make_announcement(db)
    day = {"date": "2026-06-10"}
    assert _fields(api, exec_user, announcement, {**day, "start_time": "10:00"}) == ["calendar.end_time"]
    assert _fields(api, exec_user, announcement, {**day, "end_time": "10:00"}) == ["calendar.end_time"]
    assert _fields(api, exec_user, announcement, {**day, "start_time": "10:00", "end_time": "09:00"}) == \
        ["calendar.end_time"]
    skipped = {"date": "2026-10-04"}  # Sydney's clocks go from 02:00 to 03:00
    assert _fields(api, exec_user, announcement, {**skipped, "start_time": "02:30", "end_time": "04:00"}) == \
        ["calendar.start_time"]
    assert _fields(api, exec_user, announcement, {**skipped, "start_time": "01:30", "end_time": "02:15"}) == \
        ["calendar.end_time"]
