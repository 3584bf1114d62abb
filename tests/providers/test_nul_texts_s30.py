"""Session 30, provider texts carrying a NUL (U+0000, sent as the JSON escape `\\u0000`) or a lone surrogate (an
escape such as `\\ud800`, which json.loads keeps) through the routes and jobs that store or answer them, each
provider's live adapter against `responses` with its documented body. Postgres refuses NUL in a text column and
in a jsonb value, and a lone surrogate cannot be encoded to UTF-8 for the write: before, the write failed (a 400
"A value is out of range or malformed", a 500, or a failed batch), or the answer carried it as JSON a strict
reader refuses. Each text is now cleaned where it enters (providers.http.clean_text / clean_value: NUL dropped,
a lone surrogate replaced by U+FFFD), as the AI provider's answers are (tests/providers/test_malformed_ai_s30.py)."""
import orjson
import pytest
import responses

from chalicelib.providers.planner.live import DEFAULT_BASE_URL
from tests.areas.deals.factories import make_company
from tests.areas.deals.test_enrichment_live import BASE
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.providers.test_adplatforms_wire import GADS, token_ok

NUL, LONE = "\u0000", "\ud800"


def strict(answer):
    """The answer's body as a strict JSON reader (orjson: RFC 8259 text is UTF-8) reads it."""
    return orjson.loads(answer.body)


# ---------------------------------------------------------------- the planner (Productive)

def test_the_planners_organisation_name_is_stored_cleaned(api, exec_user, set_env):
    set_env(PLANNER_MODE="live", PLANNER_ORGANIZATION_ID="")
    with responses.RequestsMock() as mock:
        mock.get(f"{DEFAULT_BASE_URL}/organization_memberships", json={
            "data": [{"id": "55", "relationships": {"organization": {"data": {"type": "organizations", "id": "913"}}}}],
            "included": [{"id": "913", "type": "organizations", "attributes": {"name": f"Agency{NUL} {LONE}"}}]})
        answered = api.put("/api/admin/connections/planner", as_=exec_user, json={"api_token": "PT"})
    assert answered.status == 200, answered.json
    assert strict(answered)["connection"]["org_name"] == "Agency \ufffd"


def test_the_planners_refusal_is_answered_as_strict_json(api, exec_user, set_env):
    set_env(PLANNER_MODE="live", PLANNER_API_TOKEN="PT", PLANNER_ORGANIZATION_ID="913", LEDGER_MODE="off")
    with responses.RequestsMock() as mock:
        mock.get(f"{DEFAULT_BASE_URL}/people", status=422, json={"errors": [{"status": "422",
                                                                            "detail": f"Bad{NUL} filter {LONE}"}]})
        answered = api.post("/api/admin/connections/user-mappings/sync", as_=exec_user)
    assert answered.status == 200, answered.json
    [error] = [line for line in strict(answered)["errors"] if line.startswith("planner")]
    assert error.endswith("Bad filter \ufffd")


# ---------------------------------------------------------------- enrichment (People Data Labs)

def test_an_enrichment_record_is_stored_cleaned(api, db, employee, set_env):
    """A lone surrogate in the record (stored whole in a `json` column) was answered as JSON a strict reader refuses
    (a 500 on the enrich route, after the credit was spent). (A NUL the column keeps and a strict reader reads: no
    failure; it is dropped too now, as from every provider text.)"""
    bad, kept = LONE, "\ufffd"
    set_env(ENRICHMENT_MODE="live", PDL_API_KEY="pdl-key")
    company = make_company(db, name="Acme", domain="acme.com")
    with responses.RequestsMock() as mock:
        mock.get(f"{BASE}/company/enrich", json={"status": 200, "name": f"acme{bad}", "website": "acme.com",
                                                 "likelihood": 7, "tags": [f"home{bad}wares"]})
        answer = api.post(f"/api/deals/companies/{company.id}/enrich", as_=employee)
    assert answer.status == 200, answer.json
    data = strict(answer)["network_data"]
    assert (data["name"], data["tags"]) == (f"acme{kept}", [f"home{kept}wares"])


# ---------------------------------------------------------------- team chat (Slack)

def test_the_chat_team_name_is_stored_cleaned(api, exec_user, set_env):
    set_env(CHAT_MODE="live")
    with responses.RequestsMock() as mock:
        mock.post("https://slack.com/api/auth.test", json={"ok": True, "team": f"Agency{NUL} {LONE}",
                                                           "team_id": "T1", "user_id": "U1"})
        made = api.put("/api/admin/connections/chat", as_=exec_user, json={"bot_token": "xoxb-t", "channel_id": "C9"})
    assert made.status == 200, made.json
    assert strict(made)["connection"]["org_name"] == "Agency \ufffd"


# ---------------------------------------------------------------- ad platforms (Google Ads, Meta)

@pytest.mark.parametrize("bad, kept", [(NUL, ""), (LONE, "\ufffd")])
@responses.activate
def test_an_ad_account_name_is_stored_cleaned(portal, db, set_env, bad, kept):  # noqa: F811
    """The connect's write failed: a 400 (NUL) or a 500 (a lone surrogate)."""
    set_env(ADPLATFORMS_MODE="live", GOOGLE_ADS_API_VERSION="v26", GOOGLE_ADS_CLIENT_ID="CID",
            GOOGLE_ADS_CLIENT_SECRET="CSECRET")
    mine = make_client(db, dashboard=True)
    token_ok()
    responses.post(GADS, json={"results": [{"customer": {"id": "1234567890", "descriptiveName": f"Acme{bad} AU",
                                                         "currencyCode": "AUD"}}]})
    responses.post(GADS, json={"results": []})  # the first sync, after the commit
    answer = portal.post("/connections", mine, role="admin", json={
        "platform": "google_ads", "display_name": "Ads",
        "credentials": {"customer_id": "123-456-7890", "refresh_token": "1//RT"}})
    assert answer.status == 201, answer.json
    assert strict(answer)["connection"]["account_name"] == f"Acme{kept} AU"


# ---------------------------------------------------------------- the orchestrator

def test_the_orchestrators_answer_is_passed_back_as_strict_json(api, db, set_env):
    from tests.areas.agents.test_proxies import ORCH
    from tests.factories import make_user

    set_env(ORCHESTRATOR_MODE="live", ORCHESTRATOR_URL=ORCH + "/", ORCHESTRATOR_TOKEN="orch-token-123456")
    with responses.RequestsMock() as mock:
        mock.get(ORCH + "/status", json={"state": f"running{NUL} {LONE}", "workers": 3})
        answer = api.get("/api/orchestrator/status", as_=make_user(db))
    assert answer.status == 200, answer.json
    assert "running \ufffd" in orjson.dumps(strict(answer)).decode()


@responses.activate
def test_the_ad_sync_records_the_platforms_message_cleaned(db, set_env):
    """Google's words went into the connection's last_sync_error (a String column): its write failed on a NUL, and
    the sync of every connection ended (as tests/providers/test_malformed_adplatforms_s30.py records a message)."""
    from chalicelib.areas.portal.models import AdConnection
    from chalicelib.areas.portal.service_connections import sync_connections
    from tests.areas.portal.test_connections_routes import _google
    from tests.providers.test_adplatforms_wire import google_failure

    set_env(ADPLATFORMS_MODE="live", GOOGLE_ADS_API_VERSION="v26", GOOGLE_ADS_CLIENT_ID="CID",
            GOOGLE_ADS_CLIENT_SECRET="CSECRET")
    connection = _google(db, make_client(db, dashboard=True), 1)
    token_ok()
    responses.post(GADS.replace("1234567890", "1111111111"), status=400, json=google_failure(
        400, "INVALID_ARGUMENT", f"Bad{NUL} query", {"queryError": "UNEXPECTED_END_OF_QUERY"}))
    assert sync_connections(connection_id=connection.id)["failed"] == 1
    db.expire_all()
    assert db.get(AdConnection, connection.id).last_sync_error == "Google Ads failed: Bad query"
