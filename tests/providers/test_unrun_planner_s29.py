"""Session 29, code no test ran in the resource-planner adapters (Productive API, JSON:API): an error body that
is not JSON, a token of no organisation, a booking answered without its id, bookings answered page after page, a
success body that is not JSON; the live mode on the settings' token and the off mode. Bodies as
https://developer.productive.io (tests/providers/test_planner_wire.py)."""
import pytest
import responses

from chalicelib.core.errors import BadGateway, BadRequest, ServiceUnavailable
from chalicelib.providers.planner import get_planner, planner_for_token
from chalicelib.providers.planner import live
from chalicelib.providers.planner.live import DEFAULT_BASE_URL, ProductivePlanner


def planner():
    return ProductivePlanner(api_token="PT", organization_id="913")


@responses.activate
def test_an_error_without_json_names_its_status_and_a_token_of_no_organisation_is_refused():
    responses.get(f"{DEFAULT_BASE_URL}/organization_memberships", status=500, body="<html>oops</html>")
    with pytest.raises(BadGateway, match="refused the request: HTTP 500"):
        planner().verify()
    responses.replace(responses.GET, f"{DEFAULT_BASE_URL}/organization_memberships", status=502, json=["Bad gateway"])
    with pytest.raises(BadGateway, match="refused the request: HTTP 502"):  # a JSON list: its status (was a 500)
        planner().verify()
    responses.replace(responses.GET, f"{DEFAULT_BASE_URL}/organization_memberships", json={"data": []})
    with pytest.raises(BadRequest, match="belongs to no organisation"):
        planner().verify()


@responses.activate
def test_a_booking_answered_without_its_id_is_502():
    responses.post(f"{DEFAULT_BASE_URL}/bookings", status=201, json={"data": {"type": "bookings"}})
    with pytest.raises(BadGateway, match="no booking id"):
        planner().create_booking(person_id="11", started_on="2026-05-04", ended_on="2026-05-08")


@responses.activate
def test_bookings_answered_page_after_page_without_end_are_502(monkeypatch):
    monkeypatch.setattr(live, "MAX_PAGES", 2)
    responses.get(f"{DEFAULT_BASE_URL}/bookings", json={"data": [], "meta": {"total_pages": 99}})
    with pytest.raises(BadGateway, match="too many pages of bookings"):
        planner().find_booking(person_id="11", started_on="2026-05-04", ended_on="2026-05-08", note="wms")


@pytest.mark.parametrize("call", ["verify", "people", "book", "find"])
@responses.activate
def test_a_success_body_that_is_not_json_is_502_never_a_500(call):
    """Session 29: `.json() or {}` raised ValueError on a 200 whose body was not JSON (a proxy's page), and a
    JSON list made `.get` an AttributeError: a 500 from the user mapping sync and the leave integration. It is
    the provider's failure (502), as every other adapter reads it (providers.http.json_body)."""
    responses.get(f"{DEFAULT_BASE_URL}/organization_memberships", body="<html>OK</html>")
    responses.get(f"{DEFAULT_BASE_URL}/people", json=["not", "an", "object"])
    responses.post(f"{DEFAULT_BASE_URL}/bookings", status=201, body="created")
    responses.get(f"{DEFAULT_BASE_URL}/bookings", body="<html>OK</html>")
    with pytest.raises(BadGateway):
        {"verify": lambda: planner().verify(), "people": lambda: planner().list_people(),
         "book": lambda: planner().create_booking(person_id="11", started_on="2026-05-04", ended_on="2026-05-08"),
         "find": lambda: planner().find_booking(person_id="11", started_on="2026-05-04", ended_on="2026-05-08",
                                                note="wms")}[call]()


def test_live_on_the_settings_token_and_off(db, set_env):
    set_env(PLANNER_MODE="live", PLANNER_API_TOKEN="PT", PLANNER_ORGANIZATION_ID="913")
    made = get_planner(db)
    assert isinstance(made, ProductivePlanner) and (made.api_token, made.organization_id) == ("PT", "913")
    set_env(PLANNER_MODE="off")
    with pytest.raises(ServiceUnavailable, match="not configured"):
        planner_for_token("PT", "913")


@responses.activate
def test_live_on_the_stored_connections_token_before_the_settings(api, db, exec_user, set_env):
    """The token an executive connected (PUT /api/admin/connections/planner, verified with Productive) is used
    before PLANNER_API_TOKEN."""
    set_env(PLANNER_MODE="live", PLANNER_API_TOKEN="SETTINGS", PLANNER_ORGANIZATION_ID="1")
    # https://developer.productive.io/organization_memberships.html with the organisation included
    responses.get(f"{DEFAULT_BASE_URL}/organization_memberships", json={
        "data": [{"id": "55", "type": "organization_memberships",
                  "relationships": {"organization": {"data": {"type": "organizations", "id": "913"}}}}],
        "included": [{"id": "913", "type": "organizations", "attributes": {"name": "Agency"}}]})
    answer = api.put("/api/admin/connections/planner", as_=exec_user, json={"api_token": "STORED"})
    assert answer.status == 200, answer.json
    db.expire_all()
    made = get_planner(db)
    assert isinstance(made, ProductivePlanner) and made.api_token == "STORED"
