"""Session 30, Productive (JSON:API) answers outside their documented shapes (developer.productive.io: `data` a list
of resource objects whose `id` is a string and `attributes` an object; `meta.total_pages` a whole number; the people
and bookings listings as tests/providers/test_planner_wire.py and test_leave_retry_wire_s27.py show them) are the
resource planner's 502, named, never a 500: `.get` on a row that is no object, `int()` of a page count "abc" or an
object, an id past its column, a person's e-mail or name that is no string (`.strip`, the join). Through the routes
and the leave job: the user-mapping sync (a 500 before; now the planner is named in `errors` and the ledger still
syncs), the planner token's save, the leave booking's retry (an "Unexpected error: AttributeError" or a 500)."""
import json
import re

import pytest
import requests
import responses

from chalicelib.providers.planner.live import DEFAULT_BASE_URL
from tests.providers.test_leave_retry_wire_s27 import _booking
from tests.providers.test_planner_wire import _people_page

SYNC = "/api/admin/connections/user-mappings/sync"
PERSON = {"id": "2835", "type": "people", "attributes": {"first_name": "Ann", "email": "ann@malformed-planner.test"}}


def _sync(api, exec_user, set_env, body):
    set_env(PLANNER_MODE="live", PLANNER_API_TOKEN="PT", PLANNER_ORGANIZATION_ID="913", LEDGER_MODE="off")
    with responses.RequestsMock() as mock:
        if isinstance(body, str):  # JSON a Python reader takes (Infinity, NaN)
            mock.get(f"{DEFAULT_BASE_URL}/people", body=body, content_type="application/vnd.api+json")
        else:
            mock.get(f"{DEFAULT_BASE_URL}/people", json=body)
        return api.post(SYNC, as_=exec_user)


@pytest.mark.parametrize("body, message", [
    # a person whose id cannot be read is left out since session 31 (tests/providers/test_planner_people_ids_s31.py)
    ({"data": ["2835"]}, "people that are not a list of objects"),
    ({"data": {"id": "2835"}}, "people that are not a list of objects"),
    ({"data": [{**PERSON, "attributes": "Ann"}]}, "a person whose attributes are not an object"),
    ({"data": [PERSON], "meta": {"total_pages": "abc"}}, "a page count"),
    ({"data": [PERSON], "meta": {"total_pages": {"n": 2}}}, "a page count"),
    ({"data": [PERSON], "meta": {"total_pages": [2]}}, "a page count"),
    ('{"data": [], "meta": {"total_pages": Infinity}}', "a page count"),
    ('{"data": [], "meta": {"total_pages": NaN}}', "a page count"),
    ({"data": [PERSON], "meta": ["total_pages", 1]}, "paging \\(meta\\) that is not an object"),
])
def test_people_outside_their_shape_are_the_planners_error_in_the_sync(api, exec_user, set_env, body, message):
    answered = _sync(api, exec_user, set_env, body)
    assert answered.status == 200, answered.json
    [error] = [line for line in answered.json["errors"] if line.startswith("planner")]
    assert error.startswith("planner: The resource planner answered ")
    assert re.search(message, error), error
    assert answered.json["planner_matched"] == 0


def test_a_persons_email_or_name_that_is_no_string_reads_as_none(api, db, exec_user, set_env):
    from tests.factories import make_user

    ann = make_user(db, email="ann@malformed-planner.test", name="Ann Lee")
    db.flush()
    page = _people_page([("2835", 7, ["Lee"], "Ann@Malformed-Planner.test"), ("2836", "Bo", None, 12)])
    answered = _sync(api, exec_user, set_env, page)
    assert answered.status == 200, answered.json
    assert not [line for line in answered.json["errors"] if line.startswith("planner")], answered.json
    assert answered.json["planner_matched"] == 1
    assert {m["user_id"]: m for m in answered.json["mappings"]}[ann.id]["planner_id"] == "2835"


def test_page_counts_as_before():
    """A count given as a string of digits or a whole float is read as before; 0 or none is one page."""
    from chalicelib.providers.planner.live import ProductivePlanner

    with responses.RequestsMock() as mock:
        for count in ("2", 2.0):
            mock.get(f"{DEFAULT_BASE_URL}/people", json={"data": [PERSON], "meta": {"total_pages": count}})
            mock.get(f"{DEFAULT_BASE_URL}/people", json={"data": [], "meta": {"total_pages": count}})
        mock.get(f"{DEFAULT_BASE_URL}/people", json={"data": [PERSON], "meta": {"total_pages": 0}})
        mock.get(f"{DEFAULT_BASE_URL}/people", json={"data": [PERSON]})
        planner = ProductivePlanner(api_token="PT", organization_id="913")
        assert [p["id"] for p in planner.list_people()] == ["2835"]
        assert [p["id"] for p in planner.list_people()] == ["2835"]
        assert [p["id"] for p in planner.list_people()] == ["2835"]
        assert [p["id"] for p in planner.list_people()] == ["2835"]
        assert len(mock.calls) == 6


# ---------------------------------------------------------------- the planner token's save (verify)

@pytest.mark.parametrize("body", [
    {"data": ["55"]},
    {"data": [{"id": "55", "relationships": ["organization"]}]},
    {"data": [{"id": "55", "relationships": {"organization": "913"}}]},
    {"data": [{"id": "55", "relationships": {"organization": {"data": {"id": "913"}}}}], "included": ["913"]},
    {"data": [{"id": "55", "relationships": {"organization": {"data": {"id": "913"}}}}],
     "included": [{"id": "913", "type": "organizations", "attributes": "Agency"}]},
])
def test_a_membership_outside_its_shape_is_a_502_on_the_token_save(api, exec_user, set_env, body):
    set_env(PLANNER_MODE="live", PLANNER_ORGANIZATION_ID="")
    with responses.RequestsMock() as mock:
        mock.get(f"{DEFAULT_BASE_URL}/organization_memberships", json=body)
        answered = api.put("/api/admin/connections/planner", as_=exec_user, json={"api_token": "PT"})
    assert answered.status == 502, answered.json
    assert answered.json["error"].startswith("The resource planner answered "), answered.json


def test_an_organisation_name_that_is_no_string_is_none(api, exec_user, set_env):
    set_env(PLANNER_MODE="live", PLANNER_ORGANIZATION_ID="")
    with responses.RequestsMock() as mock:
        mock.get(f"{DEFAULT_BASE_URL}/organization_memberships", json={
            "data": [{"id": "55", "relationships": {"organization": {"data": {"type": "organizations", "id": "913"}}}}],
            "included": [{"id": "913", "type": "organizations", "attributes": {"name": {"en": "Agency"}}}]})
        answered = api.put("/api/admin/connections/planner", as_=exec_user, json={"api_token": "PT"})
    assert answered.status == 200, answered.json
    assert answered.json["connection"]["org_name"] is None


# ---------------------------------------------------------------- the leave booking (the job and its retry)

def _leave_with_a_lost_booking(api, db, set_env, mock):
    """An approved request whose planner booking timed out (its error recorded, no id): a retry looks for it."""
    from tests.areas.leave.factories import approve_leave, map_user, mapped_team

    set_env(PLANNER_MODE="live", PLANNER_API_TOKEN="PT", PLANNER_ORGANIZATION_ID="913", PLANNER_ABSENCE_EVENT_ID="9")
    people = mapped_team(db, name="Eve Employee")
    map_user(db, people["employee"], planner_id="2835")
    mock.post(f"{DEFAULT_BASE_URL}/bookings", body=requests.exceptions.ReadTimeout("read timed out"))
    made, url, _approved = approve_leave(api, people)
    [sent] = [c for c in mock.calls if c.request.method == "POST"]
    return people, url, json.loads(sent.request.body)["data"]["attributes"]["note"]


@pytest.mark.parametrize("page, message", [
    ({"data": ["77"], "meta": {"total_pages": 1}}, "bookings that are not a list of objects"),
    ({"data": [{"id": "77", "attributes": ["2026-12-01"]}]}, "a booking whose attributes are not an object"),
    ({"data": [], "meta": {"total_pages": "abc"}}, "a page count"),
    ({"data": [], "meta": {"total_pages": {"n": 1}}}, "a page count"),
])
def test_bookings_outside_their_shape_are_the_planners_error_on_the_leave_retry(api, db, set_env, page, message):
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        people, url, _note = _leave_with_a_lost_booking(api, db, set_env, mock)
        mock.get(f"{DEFAULT_BASE_URL}/bookings", json=page)
        retried = api.post(f"{url}/retry-integrations", as_=people["exec"])
    assert retried.status == 200, retried.json
    error = retried.json["request"]["integration_errors"]["planner"]
    assert error.startswith("The resource planner answered ") and message in error, error
    assert retried.json["request"]["planner_booking_id"] is None


@pytest.mark.parametrize("booking_id", ["7" * 201, {"id": "77"}])
def test_a_booking_id_that_cannot_be_kept_is_the_planners_error_on_the_leave_retry(api, db, set_env, booking_id):
    """The booking found (or made) is kept in planner_booking_id (200 characters): a longer id failed the run's
    write, a 500 on the retry route; an object was kept as its Python text."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        people, url, note = _leave_with_a_lost_booking(api, db, set_env, mock)
        mock.get(f"{DEFAULT_BASE_URL}/bookings", json={"data": [
            {**_booking("77", "2026-12-01", "2026-12-03", note), "id": booking_id}], "meta": {"total_pages": 1}})
        retried = api.post(f"{url}/retry-integrations", as_=people["exec"])
    assert retried.status == 200, retried.json
    error = retried.json["request"]["integration_errors"]["planner"]
    assert error == "The resource planner answered a booking whose id cannot be read", error
    assert retried.json["request"]["planner_booking_id"] is None


@pytest.mark.parametrize("made", [{"data": ["77"]}, {"data": {"id": "7" * 201}}])
def test_a_booking_made_outside_its_shape_is_the_planners_error(api, db, set_env, made):
    from tests.areas.leave.factories import approve_leave, map_user, mapped_team

    set_env(PLANNER_MODE="live", PLANNER_API_TOKEN="PT", PLANNER_ORGANIZATION_ID="913", PLANNER_ABSENCE_EVENT_ID="9")
    people = mapped_team(db, name="Eve Employee")
    map_user(db, people["employee"], planner_id="2835")
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.post(f"{DEFAULT_BASE_URL}/bookings", status=201, json=made)
        _made, url, approved = approve_leave(api, people)
        assert approved.status == 200, approved.json
        request = api.get(url, as_=people["exec"]).json["request"]
    assert request["planner_booking_id"] is None
    assert request["integration_errors"]["planner"].startswith("The resource planner answered a booking "), request
