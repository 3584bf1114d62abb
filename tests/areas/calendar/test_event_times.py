"""Event times as Google reads them (session 18): a time without an offset is in its `timeZone`, else in
ORG_TIMEZONE, which the service then sends (Google refuses a time with neither); an all-day date is a day of the
calendar's time zone, so in Sydney it does not spill into the next local day. ORG_TIMEZONE is Australia/Sydney in
the tests (UTC+11 in December)."""
import pytest

from chalicelib.providers.calendar import CalendarError
from chalicelib.providers.calendar.sandbox import SandboxCalendar
from tests.areas.calendar.test_calendar import make_user

@pytest.fixture
def employee(db):
    return make_user(db, access_level="employee")


DAY_11 = "timeMin=2026-12-10T13:00:00Z&timeMax=2026-12-11T13:00:00Z"  # 11 December in Sydney


def _summaries(api, user, window):
    answer = api.get(f"/api/calendar/events?{window}", as_=user)
    assert answer.status == 200, answer
    return [e["summary"] for e in answer.json["events"] if not e.get("synthetic")]


def test_an_all_day_event_is_a_day_of_the_organisations_zone(api, employee):
    made = api.post("/api/calendar/events", as_=employee, json={
        "calendarId": "primary", "summary": "Offsite", "start": {"date": "2026-12-10"}, "end": {"date": "2026-12-11"}})
    assert made.status == 201, made
    assert "Offsite" not in _summaries(api, employee, DAY_11)  # it ends when 11 December begins in Sydney
    assert "Offsite" in _summaries(api, employee, "timeMin=2026-12-09T13:00:00Z&timeMax=2026-12-10T13:00:00Z")


def test_a_time_without_an_offset_is_in_the_organisations_zone_and_says_so(api, employee):
    made = api.post("/api/calendar/events", as_=employee, json={
        "calendarId": "primary", "summary": "Stand-up", "start": {"dateTime": "2026-12-11T09:00:00"},
        "end": {"dateTime": "2026-12-11T09:15:00"}})
    assert made.status == 201, made
    assert made.json["event"]["start"] == {"dateTime": "2026-12-11T09:00:00", "timeZone": "Australia/Sydney"}
    # 09:00 in Sydney is 22:00 UTC the day before: inside Sydney's 11 December, outside UTC's
    assert "Stand-up" in _summaries(api, employee, DAY_11)
    assert "Stand-up" not in _summaries(api, employee, "timeMin=2026-12-11T00:00:00Z&timeMax=2026-12-12T00:00:00Z")


def test_the_sandbox_refuses_a_time_without_offset_or_zone_as_google_does(db):
    with pytest.raises(CalendarError) as refused:
        SandboxCalendar(db=db).insert_event("a@example.com", "primary", {
            "summary": "x", "start": {"dateTime": "2026-12-11T09:00:00"}, "end": {"dateTime": "2026-12-11T10:00:00"}})
    assert refused.value.status == 400 and "time zone" in refused.value.extra["detail"]
