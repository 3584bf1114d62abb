"""What a client reads of its ad connections (security audit, session 18): a failed sync is shown in the
client's words unless the platform refused the client's own credentials, and an agency-managed connection does
not carry a staff member's id. Before, the portal showed `last_sync_error` as staff read it, naming the agency's
settings ("Google Ads is not configured (GOOGLE_ADS_CLIENT_ID, GOOGLE_ADS_CLIENT_SECRET)"), and `created_by`
as the staff user id."""
from chalicelib.areas.portal.models import AdConnection
from chalicelib.areas.portal.service_connections import CLIENT_SYNC_FAILED, sync_connections
from tests.areas.portal.conftest import make_client, make_refused_google_ads

GOOGLE = {"platform": "google_ads", "display_name": "Google Ads",
          "credentials": {"customer_id": "123-456-7890", "refresh_token": "1//refresh-token-g"}}


def listed(portal, company):
    answer = portal.get("/connections", company)
    assert answer.status == 200, answer
    return {c["id"]: c for c in answer.json["connections"]}


def test_the_agency_side_failure_is_not_shown_to_the_client_as_staff_read_it(portal, api, db, exec_user, set_env):
    mine = make_client(db, dashboard=True)
    connection = portal.post("/connections", mine, role="admin", user="pu-3", json=GOOGLE).json["connection"]
    set_env(ADPLATFORMS_MODE="live", GOOGLE_ADS_CLIENT_ID="", GOOGLE_ADS_CLIENT_SECRET="")
    assert sync_connections(connection_id=connection["id"]) == {"connections": 1, "synced": 0, "failed": 1, "rows": 0}
    staff = api.get(f"/api/clients/{mine.id}/connections", as_=exec_user).json["connections"][0]
    assert staff["status"] == "error" and "GOOGLE_ADS_CLIENT_ID" in staff["last_sync_error"]
    client = listed(portal, mine)[connection["id"]]
    assert client["status"] == "error" and client["last_sync_error"] == CLIENT_SYNC_FAILED
    assert client["created_by"] == "portal:pu-3"
    # a later good sync clears both
    set_env(ADPLATFORMS_MODE="sandbox")
    assert sync_connections(connection_id=connection["id"])["synced"] == 1
    assert listed(portal, mine)[connection["id"]]["last_sync_error"] is None
    assert db.get(AdConnection, connection["id"]).client_sync_error is None


def test_the_platform_refusing_the_clients_credentials_is_shown_as_it_is(portal, api, db, exec_user):
    mine = make_client(db, dashboard=True)
    broken = make_refused_google_ads(db, mine)
    sync_connections(connection_id=broken.id)
    staff = api.get(f"/api/clients/{mine.id}/connections", as_=exec_user).json["connections"][0]
    client = listed(portal, mine)[broken.id]
    assert "refused" in client["last_sync_error"] and client["last_sync_error"] == staff["last_sync_error"]


def test_an_agency_managed_connection_names_no_staff_member_in_the_portal(portal, api, db, exec_user):
    mine = make_client(db, dashboard=True)
    managed = api.post(f"/api/clients/{mine.id}/connections", as_=exec_user, json=GOOGLE).json["connection"]
    assert managed["created_by"] == exec_user.id
    client = listed(portal, mine)[managed["id"]]
    assert client["agency_managed"] == 1 and client["created_by"] is None
    assert exec_user.id not in portal.get("/connections", mine).body.decode()
