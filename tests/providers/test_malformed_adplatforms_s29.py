"""Session 29, ad-platform answers outside their documented shape: a figure that is finite but no money (1e999:
Decimal holds it, the rounding to the cent cannot) is read as 0, as NaN is; a Google Ads search, a Google token
answer, a Meta Graph answer or a Shopify resource that is not a JSON object, or whose list of rows is no list of
objects, is the platform's 502 (it was an AttributeError: a 500 on the portal's connect route, the sync's
"The sync failed (AttributeError)" otherwise). Bodies follow the pages cited in
tests/providers/test_adplatforms_wire.py; the connect route as tests/areas/portal/test_connections_live.py."""
from datetime import date
from decimal import Decimal

import pytest
import responses

from chalicelib.core.errors import BadGateway
from chalicelib.providers.adplatforms.live import GOOGLE_TOKEN_URL, _decimal, _int
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.portal.test_connections_live import gads_row, meta, meta_row, shopify
from tests.providers.test_adplatforms_wire import GADS, META, SHOP, google, token_ok

DAY = date(2026, 3, 1)


@responses.activate
def test_a_figure_too_large_to_be_money_is_read_as_zero():
    """Session 29: `_decimal("1e999")` is finite, so it passed the NaN/Infinity check, and cents() raised
    decimal.InvalidOperation rounding it: the whole connection's sync failed. An unquoted 1e999 (json reads it as
    inf) made `_int` raise OverflowError."""
    responses.get(f"{META}/insights", json={"data": [
        {**meta_row("1", "2026-03-01", "1e999", purchases="1E+30", value="-1e999"), "impressions": "1e999"}]})
    row = meta().daily_metrics(DAY, DAY)[0]
    assert (row["spend"], row["impressions"], row["conversions"], row["conversion_value"]) == (
        Decimal("0.00"), 0, Decimal("0.00"), Decimal("0.00"))
    token_ok()
    responses.post(GADS, json={"results": [gads_row("111", "Brand", "2026-03-01", "1e999", "1", "1", "1e999", 0)]})
    row = google().daily_metrics(DAY, DAY)[0]
    assert (row["spend"], row["conversions"]) == (Decimal("0.00"), Decimal("0.00"))
    assert _int(float("inf")) == 0 and _int(1e300) == 0
    # figures a platform can mean are kept: a cost of 10^19 micros (10^13 dollars) and an ordinary one
    assert _decimal("1" + "0" * 19) == Decimal(10) ** 19 and _decimal("12.345") == Decimal("12.345")


def _connect(portal_api, company, platform: str, credentials: dict):
    """The portal's connect of `platform` for the company (an admin of it), with these credentials."""
    return portal_api.post("/connections", company, role="admin",
                       json={"platform": platform, "display_name": platform, "credentials": credentials})


@pytest.mark.parametrize("body", [[{"results": []}], "results", 3])
@responses.activate
def test_connecting_google_ads_whose_search_answer_is_no_object_is_a_502(portal, db, set_env, body):  # noqa: F811
    set_env(ADPLATFORMS_MODE="live", GOOGLE_ADS_API_VERSION="v26", GOOGLE_ADS_CLIENT_ID="CID",
            GOOGLE_ADS_CLIENT_SECRET="CSECRET")
    mine = make_client(db, dashboard=True)
    token_ok()
    responses.post(GADS, json=body)
    answer = _connect(portal, mine, "google_ads", {"customer_id": "123-456-7890", "refresh_token": "1//RT"})
    assert answer.status == 502, answer.json
    assert answer.json["error"] == "Google Ads answered a body that is not a JSON object (HTTP 200)"


@responses.activate
def test_connecting_meta_or_shopify_answered_with_a_list_is_a_502(portal, db, set_env):  # noqa: F811
    set_env(ADPLATFORMS_MODE="live", META_API_VERSION="v25.0", SHOPIFY_API_VERSION="2026-07")
    mine = make_client(db, dashboard=True)
    responses.get(META, json=[{"name": "Acme"}])
    answer = _connect(portal, mine, "meta_ads", {"ad_account_id": "act_998877", "access_token": "EAAB"})
    assert answer.status == 502, answer.json
    assert answer.json["error"] == "Meta answered a body that is not a JSON object (HTTP 200)"
    responses.get(f"{SHOP}/shop.json", json=["Acme Store"])
    answer = _connect(portal, mine, "shopify", {"shop_domain": "acme", "access_token": "shpat_LIVE"})
    assert answer.status == 502, answer.json
    assert answer.json["error"] == "Shopify answered a body that is not a JSON object (HTTP 200)"


@responses.activate
def test_rows_that_are_no_list_of_objects_and_a_token_answer_that_is_no_object_are_502():
    responses.get(f"{META}/insights", json={"data": ["row"]})
    with pytest.raises(BadGateway, match="Meta answered insights rows that are not a list of objects"):
        meta().daily_metrics(DAY, DAY)
    responses.get(f"{SHOP}/orders.json", json={"orders": {"id": 1}})
    with pytest.raises(BadGateway, match="Shopify answered orders that are not a list of objects"):
        shopify().daily_metrics(DAY, DAY)
    responses.post(GOOGLE_TOKEN_URL, json=["ya29.AT"])
    with pytest.raises(BadGateway, match="Google Ads answered a body that is not a JSON object"):
        google().verify()
    responses.replace(responses.POST, GOOGLE_TOKEN_URL, json={"access_token": "ya29.AT", "expires_in": 3599})
    responses.post(GADS, json={"results": "none"})
    with pytest.raises(BadGateway, match="Google Ads answered results that are not a list of objects"):
        google().verify()
