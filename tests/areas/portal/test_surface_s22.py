"""What the client portal discloses (session 22's portal audit): the agency's configuration is never in a
connection's error and a deactivated owner is not shown as the client's lead."""
import responses

from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project
from tests.factories import make_user

GOOGLE = {"platform": "google_ads", "display_name": "Google Ads",
          "credentials": {"customer_id": "123-456-7890", "refresh_token": "1//refresh-token-g"}}


def test_connect_error_without_the_agencys_settings_does_not_name_them(portal, db, set_env):
    """docs/decisions/portal.md: the client must never read the agency's configuration (setting names) that staff
    read; the sync path hides it (client_sync_error), and the connect path, which answered it as is before session
    22, hides it too."""
    set_env(ADPLATFORMS_MODE="live", GOOGLE_ADS_CLIENT_ID="", GOOGLE_ADS_CLIENT_SECRET="")
    mine = make_client(db, dashboard=True)
    answer = portal.post("/connections", mine, role="admin", json=GOOGLE)
    assert answer.status == 503 and "GOOGLE_ADS_CLIENT" not in answer.body.decode(), answer.json
    assert answer.json["error"] == "The account could not be connected this time; try again later"


@responses.activate
def test_connect_error_of_google_refusing_the_agencys_oauth_client_is_a_503_that_quotes_nothing(portal, db, set_env):
    from chalicelib.areas.portal.service_connections import CLIENT_CONNECT_FAILED
    from chalicelib.providers.adplatforms.live import GOOGLE_TOKEN_URL

    set_env(ADPLATFORMS_MODE="live", GOOGLE_ADS_CLIENT_ID="agency-cid.apps.googleusercontent.com",
            GOOGLE_ADS_CLIENT_SECRET="S")
    responses.post(GOOGLE_TOKEN_URL, status=401, json={"error": "invalid_client",
                                                       "error_description": "The OAuth client was deleted."})
    mine = make_client(db, dashboard=True)
    answer = portal.post("/connections", mine, role="admin", json=GOOGLE)
    assert answer.status == 503 and "agency" not in answer.body.decode(), answer.json
    assert "GOOGLE_ADS" not in answer.body.decode() and "deleted" not in answer.body.decode(), answer.json
    assert answer.json["error"] == CLIENT_CONNECT_FAILED


def test_team_leaves_out_a_deactivated_owners_email_and_shows_an_active_ones(portal, db):
    gone = make_user(db, name="Gone Owner", email="gone.owner@agency.test", is_active=False)
    mine = make_client(db)
    make_project(db, company_id=mine.id, owner_id=gone.id)
    answer = portal.get("/team", mine)
    assert answer.status == 200 and "gone.owner@agency.test" not in answer.body.decode(), answer.json
    here = make_user(db, name="Here Owner", email="here.owner@agency.test")
    make_project(db, company_id=mine.id, owner_id=here.id)
    assert "here.owner@agency.test" in portal.get("/team", mine).body.decode()
