"""Session 30, ad-platform rows outside their documented shape (Google Ads `results[].campaign`, `.metrics`,
`.segments` objects and `segments.date` YYYY-MM-DD; Meta insights rows' `campaign_id`, `campaign_name` strings and
`date_start` a date, `paging` an object; a Shopify order's `created_at` an ISO 8601 date-time; the account's name
and currency strings) are the platform's 502 naming what could not be read (docs/decisions/portal.md, session 30):
the sync records that message on the connection, where it recorded "The sync failed (AttributeError)" (or
TypeError, ValueError) from its blanket handler. A name that is no string is no name (the campaign's or the
account's id stands), as an absent one: it failed the sync (`[:300]` of a number), and the portal's connect as a
500. Bodies as tests/providers/test_adplatforms_wire.py; the sync as tests/areas/portal/test_connections_routes.py."""
from datetime import date

import pytest
import responses

from chalicelib.areas.portal.models import AdConnection
from chalicelib.areas.portal.service_connections import CLIENT_SYNC_FAILED, sync_connections
from chalicelib.core.errors import BadGateway
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.portal.test_connections_live import gads_row, meta, meta_row, shopify
from tests.areas.portal.test_connections_routes import _google
from tests.providers.test_adplatforms_wire import GADS, META, SHOP, google, token_ok

DAY = date(2026, 3, 1)
ROW = gads_row("111", "Brand", "2026-03-01", "12340000", "1000", "50", 2.0, 180.5)


@pytest.mark.parametrize("row, message", [
    ({**ROW, "campaign": "111"}, "Google Ads answered a row's campaign that is not an object"),
    ({**ROW, "metrics": ["12340000"]}, "Google Ads answered a row's metrics that is not an object"),
    ({**ROW, "segments": "2026-03-01"}, "Google Ads answered a row's segments that is not an object"),
    ({**ROW, "segments": {"date": "yesterday"}}, "Google Ads answered a row's segments.date that is not a date"),
    ({**ROW, "segments": {"date": 20260301}}, "Google Ads answered a row's segments.date that is not a date"),
    ({**ROW, "campaign": {"id": {"value": "111"}}}, "Google Ads answered a campaign id that cannot be read"),
])
@responses.activate
def test_a_google_ads_row_outside_its_shape_is_a_502_naming_it(row, message):
    token_ok()
    responses.post(GADS, json={"results": [row]})
    with pytest.raises(BadGateway) as raised:
        google().daily_metrics(DAY, DAY)
    assert raised.value.message == message


@pytest.mark.parametrize("body, message", [
    ({"data": [{**meta_row("601", "2026-03-01", "4.5"), "date_start": "March 1"}]},
     "Meta answered a row's date_start that is not a date"),
    ({"data": [{**meta_row("601", "2026-03-01", "4.5"), "date_start": 1772323200}]},
     "Meta answered a row's date_start that is not a date"),
    ({"data": [{**meta_row("601", "2026-03-01", "4.5"), "campaign_id": ["601"]}]},
     "Meta answered a campaign id that cannot be read"),
    ({"data": [], "paging": "next"}, "Meta answered paging that is not an object"),
    ({"data": [], "paging": {"next": {"url": "x"}}}, "Meta answered a next page that is not a URL"),
])
@responses.activate
def test_a_meta_row_outside_its_shape_is_a_502_naming_it(body, message):
    responses.get(f"{META}/insights", json=body)
    with pytest.raises(BadGateway) as raised:
        meta().daily_metrics(DAY, DAY)
    assert raised.value.message == message


@pytest.mark.parametrize("created", ["2026-03-0a", "soon", 1772323200, ["2026-03-01"]])
@responses.activate
def test_a_shopify_order_whose_date_cannot_be_read_is_a_502(created):
    responses.get(f"{SHOP}/orders.json", json={"orders": [
        {"id": 1, "created_at": "2026-03-01T10:00:00-05:00", "current_total_price": "10.00", "cancelled_at": None},
        {"id": 2, "created_at": created, "current_total_price": "5.00", "cancelled_at": None}]})
    with pytest.raises(BadGateway) as raised:
        shopify().daily_metrics(DAY, DAY)
    assert raised.value.message == "Shopify answered an order's created_at that is not a date"


@responses.activate
def test_a_campaign_name_that_is_no_string_is_the_campaign_id():
    token_ok()
    responses.post(GADS, json={"results": [{**ROW, "campaign": {"id": "111", "name": 2026}}]})
    assert [(r["campaign_id"], r["campaign_name"]) for r in google().daily_metrics(DAY, DAY)] == [("111", "111")]
    responses.get(f"{META}/insights", json={"data": [{**meta_row("601", "2026-03-01", "4.5"), "campaign_name": 7}]})
    assert [(r["campaign_id"], r["campaign_name"]) for r in meta().daily_metrics(DAY, DAY)] == [("601", "601")]


@responses.activate
def test_the_sync_records_the_platforms_message(db, set_env):
    set_env(ADPLATFORMS_MODE="live", GOOGLE_ADS_API_VERSION="v26", GOOGLE_ADS_CLIENT_ID="CID",
            GOOGLE_ADS_CLIENT_SECRET="CSECRET")
    connection = _google(db, make_client(db, dashboard=True), 1)
    token_ok()
    responses.post(GADS.replace("1234567890", "1111111111"), json={"results": [{**ROW, "metrics": "none"}]})
    assert sync_connections(connection_id=connection.id)["failed"] == 1
    db.expire_all()
    stored = db.get(AdConnection, connection.id)
    assert stored.status == "error"
    assert stored.last_sync_error == "Google Ads answered a row's metrics that is not an object"
    assert stored.client_sync_error == CLIENT_SYNC_FAILED


@pytest.mark.parametrize("customer, name, currency", [
    ({"descriptiveName": 12345, "currencyCode": "AUD"}, "1234567890", "AUD"),
    ({"descriptiveName": "Acme AU", "currencyCode": 36}, "Acme AU", None),
])
@responses.activate
def test_connecting_google_ads_whose_account_name_is_no_string(portal, db, set_env, customer, name, currency):  # noqa: F811
    """The connect stored `(name or "")[:300]`: a number raised TypeError, a 500."""
    set_env(ADPLATFORMS_MODE="live", GOOGLE_ADS_API_VERSION="v26", GOOGLE_ADS_CLIENT_ID="CID",
            GOOGLE_ADS_CLIENT_SECRET="CSECRET")
    mine = make_client(db, dashboard=True)
    token_ok()
    responses.post(GADS, json={"results": [{"customer": {"id": "1234567890", **customer}}]})
    responses.post(GADS, json={"results": []})  # the first sync, after the commit
    answer = portal.post("/connections", mine, role="admin", json={
        "platform": "google_ads", "display_name": "Ads",
        "credentials": {"customer_id": "123-456-7890", "refresh_token": "1//RT"}})
    assert answer.status == 201, answer.json
    assert (answer.json["connection"]["account_name"], answer.json["connection"]["currency"]) == (name, currency)


@responses.activate
def test_connecting_google_ads_whose_customer_is_no_object_is_a_502(portal, db, set_env):  # noqa: F811
    set_env(ADPLATFORMS_MODE="live", GOOGLE_ADS_API_VERSION="v26", GOOGLE_ADS_CLIENT_ID="CID",
            GOOGLE_ADS_CLIENT_SECRET="CSECRET")
    mine = make_client(db, dashboard=True)
    token_ok()
    responses.post(GADS, json={"results": [{"customer": "customers/1234567890"}]})
    answer = portal.post("/connections", mine, role="admin", json={
        "platform": "google_ads", "display_name": "Ads",
        "credentials": {"customer_id": "123-456-7890", "refresh_token": "1//RT"}})
    assert answer.status == 502, answer.json
    assert answer.json["error"] == "Google Ads answered a customer that is not an object"
