"""Wire format of the live planner (Productive, JSON:API) against Productive's documents, with `responses` (no
network)."""
import json
from urllib.parse import parse_qs, urlparse

import responses
from responses import matchers

from chalicelib.providers.planner.live import DEFAULT_BASE_URL, ProductivePlanner


@responses.activate
def test_an_absence_booking_per_day_sends_hours_and_time():
    # https://developer.productive.io/bookings.html: "Per day (requires hours and time attributes to specify
    # hours and time for each day)"; absence bookings are linked to an event; started_on / ended_on YYYY-MM-DD.
    responses.post(f"{DEFAULT_BASE_URL}/bookings", status=201, json={"data": {
        "id": "1234", "type": "bookings",
        "attributes": {"hours": 7.6, "time": 456, "started_on": "2026-05-04", "ended_on": "2026-05-08",
                       "note": "Annual leave", "booking_method_id": 1, "draft": False},
        "relationships": {"person": {"data": {"type": "people", "id": "11"}},
                          "event": {"data": {"type": "events", "id": "9"}}}}})
    planner = ProductivePlanner(api_token="PT", organization_id="4242")
    made = planner.create_booking(person_id="11", started_on="2026-05-04", ended_on="2026-05-08", hours_per_day=7.6,
                                  event_id="9", note="Annual leave")
    assert made == {"id": "1234"}
    request = responses.calls[0].request
    assert request.headers["X-Auth-Token"] == "PT" and request.headers["X-Organization-Id"] == "4242"
    assert request.headers["Content-Type"] == "application/vnd.api+json"
    sent = json.loads(request.body)["data"]
    assert sent["type"] == "bookings"
    assert sent["attributes"] == {"started_on": "2026-05-04", "ended_on": "2026-05-08", "booking_method_id": 1,
                                  "hours": 7.6, "time": 456, "note": "Annual leave"}
    assert sent["relationships"] == {"person": {"data": {"type": "people", "id": "11"}},
                                     "event": {"data": {"type": "events", "id": "9"}}}


@responses.activate
def test_the_time_a_day_is_the_hours_in_whole_minutes_half_up():
    # 0.075 hours a day is 4.5 minutes: 5, exact (in binary floating point 0.075 * 60 is 4.5 and round() goes to even)
    responses.post(f"{DEFAULT_BASE_URL}/bookings", status=201, json={"data": {"id": "1235", "type": "bookings"}})
    planner = ProductivePlanner(api_token="PT", organization_id="4242")
    planner.create_booking(person_id="11", started_on="2026-05-04", ended_on="2026-05-08", hours_per_day=0.075,
                           event_id="9")
    sent = json.loads(responses.calls[0].request.body)["data"]["attributes"]
    assert (sent["hours"], sent["time"]) == (0.075, 5)


def _people_page(people):
    # https://developer.productive.io/people.html, GET /api/v2/people: JSON:API data, meta with total_pages.
    return {"data": [{"id": pid, "type": "people", "attributes": {
        "first_name": first, "last_name": last, "email": email, "deactivated_at": None, "is_user": True,
        "placeholder": False}, "relationships": {"organization": {"data": {"type": "organizations", "id": "913"}}}}
        for pid, first, last, email in people],
        "links": {}, "meta": {"current_page": 1, "total_pages": 1, "total_count": len(people), "page_size": 200,
                              "max_page_size": 200}}


@responses.activate
def test_people_are_the_active_users_of_the_organisation():
    # https://developer.productive.io/people.html: filter status (1: active, 2: deactivated), person_type
    # (1: user, 2: contact, 3: placeholder).
    responses.get(f"{DEFAULT_BASE_URL}/people", json=_people_page([("2835", "Ann", "Lee", "Ann@Agency.test")]))
    people = ProductivePlanner(api_token="PT", organization_id="913").list_people()
    assert people == [{"id": "2835", "email": "ann@agency.test", "name": "Ann Lee"}]
    query = parse_qs(urlparse(responses.calls[0].request.url).query)
    assert query["filter[status]"] == ["1"] and query["filter[person_type]"] == ["1"]
    assert query["page[number]"] == ["1"] and query["page[size]"] == ["200"]


@responses.activate
def test_the_user_mapping_sync_asks_productive_for_active_users_only(api, db, exec_user, set_env):
    from tests.factories import make_user

    set_env(PLANNER_MODE="live", PLANNER_API_TOKEN="PT", PLANNER_ORGANIZATION_ID="913", LEDGER_MODE="off")
    ann = make_user(db, email="ann@wire-planner.test", name="Ann Lee")
    db.flush()
    # Productive answers only what the filters select: the active user, not the deactivated contact that
    # shares her e-mail (which an unfiltered listing would also hold).
    responses.get(f"{DEFAULT_BASE_URL}/people", json=_people_page([("2835", "Ann", "Lee", "ann@wire-planner.test")]),
                  match=[matchers.query_param_matcher({"filter[status]": "1", "filter[person_type]": "1",
                                                       "page[number]": "1", "page[size]": "200"})])
    responses.get(f"{DEFAULT_BASE_URL}/people", json=_people_page([("2835", "Ann", "Lee", "ann@wire-planner.test"),
                                                                    ("4001", "Ann", "Lee", "ann@wire-planner.test")]))
    answer = api.post("/api/admin/connections/user-mappings/sync", as_=exec_user)
    assert answer.status == 200, answer
    assert {m["user_id"]: m for m in answer.json["mappings"]}[ann.id]["planner_id"] == "2835"
    assert responses.calls[0].request.headers["X-Organization-Id"] == "913"


# ---------------------------------------------------------------- the sandbox answers as Productive does

def test_the_sandbox_refuses_a_booking_with_no_or_an_unknown_absence_event(db):
    """Productive refuses (422) an absence booking without its event ("required if you are making a Timeoff/Event
    booking"): the sandbox answers 502 as the live adapter does, and stores nothing."""
    import pytest
    from sqlalchemy import func, select

    from chalicelib.core.errors import BadGateway
    from chalicelib.providers.planner.models import PlannerSandboxBooking
    from chalicelib.providers.planner.sandbox import SANDBOX_ABSENCE_EVENT_ID, SandboxPlanner, person_id
    from tests.factories import make_user

    user = make_user(db)
    planner = SandboxPlanner(db=db, api_token="sandbox")
    dates = {"person_id": person_id(user.email), "started_on": "2026-12-01", "ended_on": "2026-12-03"}
    with pytest.raises(BadGateway, match="event"):
        planner.create_booking(**dates, hours_per_day=7.6, note="Leave: Annual Leave")
    with pytest.raises(BadGateway, match="event not found"):
        planner.create_booking(**dates, event_id="999999")
    assert db.scalar(select(func.count(PlannerSandboxBooking.id))) == 0
    made = planner.create_booking(**dates, event_id=SANDBOX_ABSENCE_EVENT_ID)
    assert db.get(PlannerSandboxBooking, made["id"]).event_id == SANDBOX_ABSENCE_EVENT_ID


@responses.activate
def test_a_booking_id_from_the_provider_stays_one_segment():
    """The booking id Productive answered went into the DELETE's path as it was: `../people/7` reached
    `/api/v2/people/7` with the organisation's token (session 22's injection audit)."""
    responses.delete(f"{DEFAULT_BASE_URL}/bookings/..%2Fpeople%2F7", status=204)
    ProductivePlanner(api_token="PT", organization_id="1").delete_booking("../people/7")
    assert responses.calls[0].request.path_url == "/api/v2/bookings/..%2Fpeople%2F7"
