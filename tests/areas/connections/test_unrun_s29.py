"""Session 29 (code no test runs): the connections area's branch the whole suite left unexecuted. A provider that
answers the user-mapping sync's listing with an error is named in `errors`; the other provider still syncs and
the stored ids of the failed one stay."""
import responses

from chalicelib.providers.planner.live import DEFAULT_BASE_URL
from tests.factories import make_user

BASE = "/api/admin/connections"


@responses.activate
def test_a_planner_failing_its_people_listing_is_named_and_the_ledger_still_syncs(api, db, exec_user, set_env):
    set_env(PLANNER_MODE="live", PLANNER_API_TOKEN="PT", PLANNER_ORGANIZATION_ID="913")
    alice = make_user(db, name="Alice", email="alice@agency.test")
    assert api.put(f"{BASE}/user-mappings/{alice.id}", as_=exec_user, json={"planner_id": "77"}).status == 200
    responses.get(f"{DEFAULT_BASE_URL}/people", json={"errors": [{"status": "500", "title": "boom"}]}, status=500)
    answer = api.post(f"{BASE}/user-mappings/sync", as_=exec_user)
    assert answer.status == 200, answer
    body = answer.json
    assert [error.split(":")[0] for error in body["errors"]] == ["planner"], body["errors"]
    assert body["planner_matched"] == 0 and body["ledger_matched"] >= 1
    mine = {m["user_id"]: m for m in body["mappings"]}[alice.id]
    assert mine["planner_id"] == "77" and mine["ledger_id"]
