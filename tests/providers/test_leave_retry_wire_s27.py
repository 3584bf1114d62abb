"""Session 27: the live adapters' part of a leave integration retried after the provider made the object but its
answer was lost (a timeout), with `responses` (no network).
- Google Calendar events.insert takes a client-chosen `id` (https://developers.google.com/workspace/calendar/api/v3/
  reference/events/insert, Event `id`: base32hex characters a-v and 0-9, 5 to 1024 long, unique per calendar);
  an id in use answers 409 with reason `duplicate` (https://developers.google.com/workspace/calendar/api/guides/
  errors#409_the_requested_identifier_already_exists), which the adapter keeps on the CalendarError (`reason`).
- Productive lists bookings with `GET /bookings` and `filter[person_id]`, `filter[event_id]`, `filter[after]`,
  `filter[before]` (developer.productive.io/bookings.html), JSON:API paged (meta.total_pages); the adapter picks
  the booking of exactly those dates and note.
"""
import json
from urllib.parse import parse_qs, urlparse

import pytest
import requests
import responses

from chalicelib.providers.calendar import CalendarError
from chalicelib.providers.planner.live import DEFAULT_BASE_URL, ProductivePlanner
from tests.providers.test_calendar_wire import API, live  # noqa: F401 - the live calendar fixture

TEAM = "team@group.calendar.google.com"


def _google_409(mock, path):
    mock.add(responses.POST, f"{API}{path}", status=409, json={"error": {
        "code": 409, "message": "The requested identifier already exists.",
        "errors": [{"domain": "global", "reason": "duplicate", "message": "The requested identifier already exists."}]}})


def test_the_calendar_insert_sends_the_client_id_and_a_duplicate_is_a_409_with_its_reason(live):  # noqa: F811
    from chalicelib.providers.calendar import get_calendar

    path = f"/calendars/{TEAM.replace('@', '%40')}/events"
    live.add(responses.POST, f"{API}{path}", json={"id": "leave0123456789abcdef", "status": "confirmed"})
    calendar = get_calendar()
    event = {"id": "leave0123456789abcdef", "summary": "On leave — Eve", "start": {"date": "2026-12-01"},
             "end": {"date": "2026-12-04"}}
    assert calendar.insert_event("eve@agency.test", TEAM, event)["id"] == "leave0123456789abcdef"
    [sent] = [c for c in live.calls if c.request.url.startswith(API)]
    assert json.loads(sent.request.body)["id"] == "leave0123456789abcdef"
    live.remove(responses.POST, f"{API}{path}")
    _google_409(live, path)
    with pytest.raises(CalendarError) as duplicate:
        calendar.insert_event("eve@agency.test", TEAM, event)
    assert duplicate.value.status == 409 and duplicate.value.reason == "duplicate"


def test_leave_calendar_retry_after_a_lost_answer_takes_the_event_google_made(api, db, live, set_env):  # noqa: F811
    from tests.areas.leave.factories import approve_leave, mapped_team

    people = mapped_team(db, name="Eve Employee")
    path = f"/calendars/{TEAM.replace('@', '%40')}/events"
    live.add(responses.POST, f"{API}{path}", body=requests.exceptions.ReadTimeout("read timed out"))
    made, url, _approved = approve_leave(api, people)
    first = api.get(url, as_=people["exec"]).json["request"]
    assert first["calendar_event_id"] is None and "calendar" in first["integration_errors"]
    inserts = [c for c in live.calls if c.request.method == "POST" and c.request.url.startswith(API)]
    client_id = json.loads(inserts[0].request.body)["id"]  # the id Google made the event with
    live.remove(responses.POST, f"{API}{path}")
    _google_409(live, path)  # the event exists: Google refuses a second one with that id
    retried = api.post(f"{url}/retry-integrations", as_=people["exec"])
    assert retried.status == 200, retried
    assert retried.json["request"]["calendar_event_id"] == client_id
    assert "calendar" not in (retried.json["request"]["integration_errors"] or {})
    inserts = [c for c in live.calls if c.request.method == "POST" and c.request.url.startswith(API)]
    assert [json.loads(c.request.body)["id"] for c in inserts] == [client_id, client_id]


def _booking(booking_id, started_on, ended_on, note):
    return {"id": booking_id, "type": "bookings", "attributes": {
        "started_on": started_on, "ended_on": ended_on, "note": note, "hours": 7.6, "time": 456,
        "booking_method_id": 1, "draft": False},
        "relationships": {"person": {"data": {"type": "people", "id": "11"}},
                          "event": {"data": {"type": "events", "id": "9"}}}}


@responses.activate
def test_find_booking_asks_for_the_persons_absence_bookings_and_picks_the_exact_one():
    pages = [
        {"data": [_booking("1", "2026-11-30", "2026-12-04", "Leave: Annual Leave (ref r-1)"),
                  _booking("2", "2026-12-01", "2026-12-03", "Leave: Annual Leave (ref r-other)")],
         "meta": {"current_page": 1, "total_pages": 2}},
        {"data": [_booking("3", "2026-12-01", "2026-12-03", "Leave: Annual Leave (ref r-1)")],
         "meta": {"current_page": 2, "total_pages": 2}}]
    for page in pages:
        responses.get(f"{DEFAULT_BASE_URL}/bookings", json=page)
    planner = ProductivePlanner(api_token="PT", organization_id="4242")
    found = planner.find_booking(person_id="11", started_on="2026-12-01", ended_on="2026-12-03",
                                 note="Leave: Annual Leave (ref r-1)", event_id="9")
    assert found == {"id": "3"}
    query = parse_qs(urlparse(responses.calls[0].request.url).query)
    assert query["filter[person_id]"] == ["11"] and query["filter[event_id]"] == ["9"]
    assert query["filter[after]"] == ["2026-11-30"] and query["filter[before]"] == ["2026-12-04"]
    assert query["page[number]"] == ["1"]
    assert parse_qs(urlparse(responses.calls[1].request.url).query)["page[number]"] == ["2"]
    assert responses.calls[0].request.headers["X-Organization-Id"] == "4242"


@responses.activate
def test_find_booking_answers_none_when_productive_holds_none():
    responses.get(f"{DEFAULT_BASE_URL}/bookings", json={"data": [], "meta": {"total_pages": 1}})
    planner = ProductivePlanner(api_token="PT", organization_id="4242")
    assert planner.find_booking(person_id="11", started_on="2026-12-01", ended_on="2026-12-03",
                                note="Leave: Annual Leave (ref r-1)", event_id="9") is None


def test_leave_planner_retry_after_a_lost_answer_takes_the_booking_productive_made(api, db, set_env):
    from tests.areas.leave.factories import approve_leave, mapped_team

    set_env(PLANNER_MODE="live", PLANNER_API_TOKEN="PT", PLANNER_ORGANIZATION_ID="913", PLANNER_ABSENCE_EVENT_ID="9")
    people = mapped_team(db, name="Eve Employee")
    from tests.areas.leave.factories import map_user

    map_user(db, people["employee"], planner_id="2835")
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.post(f"{DEFAULT_BASE_URL}/bookings", body=requests.exceptions.ReadTimeout("read timed out"))
        made, url, _approved = approve_leave(api, people)
        first = api.get(url, as_=people["exec"]).json["request"]
        assert first["planner_booking_id"] is None and "planner" in first["integration_errors"]
        [sent] = [c for c in mock.calls if c.request.method == "POST"]
        note = json.loads(sent.request.body)["data"]["attributes"]["note"]
        assert made["id"] in note  # the note names the request: the booking is found as this request's
        mock.get(f"{DEFAULT_BASE_URL}/bookings", json={"data": [
            _booking("77", "2026-12-01", "2026-12-03", note)], "meta": {"total_pages": 1}})
        retried = api.post(f"{url}/retry-integrations", as_=people["exec"])
        assert retried.status == 200, retried
        assert retried.json["request"]["planner_booking_id"] == "77"
        assert len([c for c in mock.calls if c.request.method == "POST"]) == 1  # no second booking
