"""The live ad-platform adapters, with `responses`, against the request and answer shapes of their public API
documents: Google Ads (OAuth refresh-token grant, GAQL `googleAds:search` with developer-token and
login-customer-id headers, nextPageToken paging, cost in micros, GoogleAdsFailure errors), Meta Marketing API
insights (level campaign, time_increment 1, paging.next, purchase actions, OAuthException and throttling codes)
and Shopify Admin REST orders (X-Shopify-Access-Token, Link rel="next" paging, cancelled orders left out); 429
with Retry-After waited once or 503, timeouts 504, other failures 502."""
import json
from datetime import date
from decimal import Decimal
from urllib.parse import parse_qs, urlparse

import pytest
import requests
import responses

from chalicelib.core.errors import BadGateway, GatewayTimeout, ServiceUnavailable
from chalicelib.providers import http as provider_http
from chalicelib.providers.adplatforms.base import (CredentialsRefused, GoogleAdsCredentials,
                                                   MetaAdsCredentials, ShopifyCredentials)
from chalicelib.providers.adplatforms.live import GOOGLE_TOKEN_URL, GoogleAds, MetaAds, Shopify

GADS = "https://googleads.googleapis.com/v26/customers/1234567890/googleAds:search"
META = "https://graph.facebook.com/v25.0/act_998877"
SHOP = "https://acme.myshopify.com/admin/api/2026-07"


@pytest.fixture
def waits(monkeypatch):
    slept = []
    monkeypatch.setattr(provider_http, "sleep", slept.append)
    return slept


def google(login="9876543210"):
    creds = GoogleAdsCredentials(customer_id="123-456-7890", refresh_token="1//RT", login_customer_id=login)
    return GoogleAds(credentials=creds, developer_token="DEV-TOKEN", client_id="CID", client_secret="CSECRET",
                     version="v26", max_wait=5)


def meta():
    return MetaAds(credentials=MetaAdsCredentials(ad_account_id="act_998877", access_token="EAAB"), version="v25.0",
                   max_wait=5)


def shopify():
    return Shopify(credentials=ShopifyCredentials(shop_domain="acme.myshopify.com", access_token="shpat_X"),
                   version="2026-07", max_wait=5)


def token_ok():
    responses.post(GOOGLE_TOKEN_URL, json={"access_token": "ya29.AT", "expires_in": 3599, "scope":
                                           "https://www.googleapis.com/auth/adwords", "token_type": "Bearer"})


def gads_row(cid, name, day, cost_micros, impressions, clicks, conversions, value):
    return {"campaign": {"resourceName": f"customers/1234567890/campaigns/{cid}", "id": cid, "name": name},
            "metrics": {"costMicros": cost_micros, "impressions": impressions, "clicks": clicks,
                        "conversions": conversions, "conversionsValue": value},
            "segments": {"date": day}}


@responses.activate
def test_google_ads_refresh_token_gaql_search_and_paging():
    token_ok()
    first = responses.post(GADS, json={"results": [gads_row("111", "Brand", "2026-03-01", "12340000", "1000", "50",
                                                            2.0, 180.5)],
                                       "nextPageToken": "PAGE2", "fieldMask": "campaign.id,campaign.name"})
    responses.post(GADS, json={"results": [gads_row("222", "Generic", "2026-03-02", "500000", "10", "1", 0.5, 20)],
                               "fieldMask": "campaign.id"})
    rows = google().daily_metrics(date(2026, 3, 1), date(2026, 3, 2))
    token_form = parse_qs(responses.calls[0].request.body)
    assert token_form == {"grant_type": ["refresh_token"], "refresh_token": ["1//RT"], "client_id": ["CID"],
                          "client_secret": ["CSECRET"]}
    search = responses.calls[1].request
    assert search.headers["Authorization"] == "Bearer ya29.AT" and search.headers["developer-token"] == "DEV-TOKEN"
    assert search.headers["login-customer-id"] == "9876543210"
    query = json.loads(search.body)["query"]
    assert "metrics.cost_micros" in query and "metrics.conversions_value" in query and "segments.date" in query
    assert "BETWEEN '2026-03-01' AND '2026-03-02'" in query and "FROM campaign" in query
    assert json.loads(responses.calls[2].request.body)["pageToken"] == "PAGE2"
    assert len([c for c in responses.calls if c.request.url == GOOGLE_TOKEN_URL]) == 1  # token reused
    assert first.call_count == 1 and len(responses.calls) == 3
    assert [(r["campaign_id"], r["campaign_name"], r["date"], r["spend"], r["impressions"], r["clicks"],
             r["conversions"], r["conversion_value"]) for r in rows] == [
        ("111", "Brand", date(2026, 3, 1), Decimal("12.34"), 1000, 50, Decimal("2.00"), Decimal("180.50")),
        ("222", "Generic", date(2026, 3, 2), Decimal("0.50"), 10, 1, Decimal("0.50"), Decimal("20.00"))]


@responses.activate
def test_google_ads_verify_and_refusals():
    token_ok()
    responses.post(GADS, json={"results": [{"customer": {"resourceName": "customers/1234567890", "id": "1234567890",
                                                         "descriptiveName": "Acme AU", "currencyCode": "AUD"}}]})
    assert google(login=None).verify() == {"account_name": "Acme AU", "currency": "AUD"}
    assert "login-customer-id" not in responses.calls[1].request.headers
    responses.reset()
    responses.post(GOOGLE_TOKEN_URL, status=400, json={"error": "invalid_grant",
                                                       "error_description": "Token has been expired or revoked."})
    with pytest.raises(CredentialsRefused, match="expired or revoked"):
        google().verify()
    responses.reset()
    token_ok()
    failure = {"error": {"code": 403, "message": "The caller does not have permission", "status": "PERMISSION_DENIED",
                         "details": [{"@type": "type.googleapis.com/google.ads.googleads.v26.errors.GoogleAdsFailure",
                                      "errors": [{"errorCode": {"authorizationError": "USER_PERMISSION_DENIED"},
                                                  "message": "User doesn't have permission to access customer."}],
                                      "requestId": "r1"}]}}
    responses.post(GADS, status=403, json=failure)
    with pytest.raises(CredentialsRefused, match="permission to access customer"):
        google().verify()
    responses.reset()
    token_ok()
    responses.post(GADS, status=400, json={"error": {"code": 400, "message": "Request contains an invalid argument.",
                                                     "status": "INVALID_ARGUMENT", "details": [
                                                         {"errors": [{"message": "Unrecognized field."}]}]}})
    with pytest.raises(BadGateway, match="Unrecognized field"):
        google().verify()


@responses.activate
def test_429_waits_retry_after_once_then_503_and_timeouts_504(waits):
    token_ok()
    # Google Ads sends no Retry-After: the wait is the GoogleAdsFailure's QuotaErrorDetails.retryDelay
    # (https://developers.google.com/google-ads/api/reference/rpc/v26/QuotaErrorDetails)
    responses.post(GADS, status=429, json={"error": {"code": 429, "message": "Too many requests.",
                                                     "status": "RESOURCE_EXHAUSTED", "details": [{
        "@type": "type.googleapis.com/google.ads.googleads.v26.errors.GoogleAdsFailure",
        "errors": [{"errorCode": {"quotaError": "RESOURCE_TEMPORARILY_EXHAUSTED"}, "message": "Too many requests.",
                    "details": {"quotaErrorDetails": {"rateScope": "ACCOUNT", "retryDelay": "2s"}}}],
        "requestId": "r2"}]}})
    responses.post(GADS, json={"results": []})
    assert google().daily_metrics(date(2026, 3, 1), date(2026, 3, 1)) == []
    assert waits == [2.0]
    responses.reset()
    # https://shopify.dev/docs/api/usage/limits#rate-limits: 429 with Retry-After (seconds)
    responses.get(f"{SHOP}/shop.json", status=429, headers={"Retry-After": "60.0"}, json={
        "errors": "Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service."})
    with pytest.raises(ServiceUnavailable) as raised:
        shopify().verify()
    assert raised.value.extra == {"retry_after": 60}
    responses.reset()
    responses.get(f"{SHOP}/shop.json", body=requests.Timeout("slow"))
    with pytest.raises(GatewayTimeout):
        shopify().verify()
    responses.reset()
    responses.get(f"{SHOP}/shop.json", body=requests.ConnectionError("down"))
    with pytest.raises(BadGateway, match="unreachable"):
        shopify().verify()


def meta_row(cid, day, spend, purchases=None, value=None):
    row = {"campaign_id": cid, "campaign_name": f"Campaign {cid}", "spend": spend, "impressions": "1200",
           "clicks": "34", "date_start": day, "date_stop": day}
    if purchases is not None:
        row["actions"] = [{"action_type": "link_click", "value": "34"},
                          {"action_type": "offsite_conversion.fb_pixel_purchase", "value": purchases},
                          {"action_type": "omni_purchase", "value": purchases}]
        row["action_values"] = [{"action_type": "omni_purchase", "value": value},
                                {"action_type": "purchase", "value": value}]
    return row


@responses.activate
def test_meta_insights_paging_and_purchases():
    next_url = f"{META}/insights?access_token=EAAB&after=MjQZD&limit=500"
    responses.get(f"{META}/insights", match=[responses.matchers.query_param_matcher({
        "level": "campaign", "time_increment": "1", "limit": "500",
        "time_range": json.dumps({"since": "2026-03-01", "until": "2026-03-02"}),
        "fields": "campaign_id,campaign_name,spend,impressions,clicks,actions,action_values",
        "filtering": json.dumps([{"field": "ad.effective_status", "operator": "IN", "value": [
            "ACTIVE", "ADSET_PAUSED", "ARCHIVED", "CAMPAIGN_PAUSED", "DELETED", "DISAPPROVED", "IN_PROCESS", "PAUSED",
            "PENDING_BILLING_INFO", "PENDING_REVIEW", "PREAPPROVED", "WITH_ISSUES"]}])})],
        json={"data": [meta_row("601", "2026-03-01", "45.67", "3", "210.00")],
              "paging": {"cursors": {"before": "MAZDZD", "after": "MjQZD"}, "next": next_url}})
    responses.get(next_url, json={"data": [meta_row("602", "2026-03-02", "5")],
                                  "paging": {"cursors": {"before": "MjQZD", "after": "MjUZD"}}})
    rows = meta().daily_metrics(date(2026, 3, 1), date(2026, 3, 2))
    assert responses.calls[0].request.headers["Authorization"] == "Bearer EAAB"
    assert [(r["campaign_id"], r["date"], r["spend"], r["impressions"], r["clicks"], r["conversions"],
             r["conversion_value"]) for r in rows] == [
        ("601", date(2026, 3, 1), Decimal("45.67"), 1200, 34, Decimal("3.00"), Decimal("210.00")),
        ("602", date(2026, 3, 2), Decimal("5.00"), 1200, 34, Decimal("0.00"), Decimal("0.00"))]


@responses.activate
def test_meta_verify_and_errors():
    responses.get(META, json={"name": "Acme Ads", "account_status": 1, "currency": "AUD", "id": "act_998877"})
    assert meta().verify() == {"account_name": "Acme Ads", "currency": "AUD"}
    responses.reset()
    responses.get(META, status=400, json={"error": {"message": "Error validating access token: Session has expired",
                                                    "type": "OAuthException", "code": 190, "error_subcode": 463,
                                                    "fbtrace_id": "A1"}})
    with pytest.raises(CredentialsRefused, match="Session has expired"):
        meta().verify()
    responses.reset()
    responses.get(META, status=400, json={"error": {"message": "User request limit reached", "type": "OAuthException",
                                                    "code": 17, "fbtrace_id": "A2"}})
    with pytest.raises(ServiceUnavailable, match="rate limiting"):
        meta().verify()
    responses.reset()
    responses.get(META, status=500, json={"error": {"message": "An unknown error occurred", "type": "FacebookApiException",
                                                    "code": 1, "fbtrace_id": "A3"}})
    with pytest.raises(BadGateway, match="unknown error"):
        meta().verify()


@responses.activate
def test_shopify_orders_link_paging_revenue_per_day():
    page2 = f"{SHOP}/orders.json?limit=250&page_info=eyJsYXN0X2lk"
    responses.get(f"{SHOP}/orders.json", json={"orders": [
        {"id": 1, "created_at": "2026-03-01T09:00:00+11:00", "current_total_price": "100.50", "total_price": "110.00",
         "cancelled_at": None},
        {"id": 2, "created_at": "2026-03-01T23:30:00+11:00", "current_total_price": "20.00", "cancelled_at": None},
        {"id": 3, "created_at": "2026-03-01T12:00:00+11:00", "current_total_price": "999.00",
         "cancelled_at": "2026-03-01T13:00:00+11:00"}]},
        headers={"Link": f'<{page2}>; rel="next"'})
    responses.get(page2, json={"orders": [{"id": 4, "created_at": "2026-03-02T08:00:00+11:00",
                                           "current_total_price": "5.25", "cancelled_at": None}]},
                  headers={"Link": f'<{SHOP}/orders.json?limit=250&page_info=prev>; rel="previous"'})
    rows = shopify().daily_metrics(date(2026, 3, 1), date(2026, 3, 2))
    first = responses.calls[0].request
    assert first.headers["X-Shopify-Access-Token"] == "shpat_X"
    params = parse_qs(urlparse(first.url).query)
    assert params["status"] == ["any"] and params["limit"] == ["250"]
    # ISO 8601 with an offset, as https://shopify.dev/docs/api/admin-rest/2026-07/resources/order#get-orders
    # documents the bounds; a day wider each side (any shop timezone), the orders kept by their local date
    assert params["created_at_min"] == ["2026-02-28T00:00:00Z"] and params["created_at_max"] == ["2026-03-03T23:59:59Z"]
    assert "page_info" in responses.calls[1].request.url and "status" not in responses.calls[1].request.url
    assert [(r["campaign_id"], r["date"], r["orders"], r["revenue"], r["spend"]) for r in rows] == [
        ("store", date(2026, 3, 1), 2, Decimal("120.50"), Decimal("0")),
        ("store", date(2026, 3, 2), 1, Decimal("5.25"), Decimal("0"))]


@responses.activate
def test_shopify_verify_and_refused_token():
    responses.get(f"{SHOP}/shop.json", json={"shop": {"id": 548380009, "name": "Acme Store", "currency": "AUD",
                                                      "iana_timezone": "Australia/Sydney"}})
    assert shopify().verify() == {"account_name": "Acme Store", "currency": "AUD"}
    responses.reset()
    responses.get(f"{SHOP}/shop.json", status=401, json={
        "errors": "[API] Invalid API key or access token (unrecognized login or wrong password)"})
    with pytest.raises(CredentialsRefused, match="Invalid API key"):
        shopify().verify()
    responses.reset()
    responses.get(f"{SHOP}/shop.json", status=500, json={"errors": "Internal Server Error"})
    with pytest.raises(BadGateway):
        shopify().verify()


@responses.activate
def test_portal_connect_in_live_mode_tests_the_token_before_storing(portal, db, set_env):
    """Through the route with ADPLATFORMS_MODE=live: a token Shopify refuses is 400 and nothing is stored; an
    accepted one is stored (the shop's name kept) and its recent orders synced after the commit."""
    from sqlalchemy import func, select

    from chalicelib.areas.portal.models import AdConnection, AdDailyMetric
    from chalicelib.core.timeutil import org_today
    from tests.areas.portal.conftest import make_client

    set_env(ADPLATFORMS_MODE="live", SHOPIFY_API_VERSION="2026-07", ADPLATFORMS_RESYNC_DAYS="3")
    mine = make_client(db, dashboard=True)
    body = {"platform": "shopify", "display_name": "Store",
            "credentials": {"shop_domain": "acme", "access_token": "shpat_LIVE"}}
    responses.get(f"{SHOP}/shop.json", status=401, json={"errors": "[API] Invalid API key or access token"})
    refused = portal.post("/connections", mine, role="admin", json=body)
    assert refused.status == 400 and "Invalid API key" in refused.json["error"]
    assert db.scalar(select(func.count()).select_from(AdConnection).where(AdConnection.company_id == mine.id)) == 0
    responses.reset()
    today = org_today().isoformat()
    responses.get(f"{SHOP}/shop.json", json={"shop": {"id": 1, "name": "Acme Store", "currency": "AUD"}})
    responses.get(f"{SHOP}/orders.json", json={"orders": [
        {"id": 9, "created_at": f"{today}T10:00:00+11:00", "current_total_price": "42.00", "cancelled_at": None}]})
    made = portal.post("/connections", mine, role="admin", json=body)
    assert made.status == 201, made
    assert (made.json["connection"]["account_id"], made.json["connection"]["account_name"]) == (
        "acme.myshopify.com", "Acme Store")
    assert all(call.request.headers["X-Shopify-Access-Token"] == "shpat_LIVE" for call in responses.calls)
    assert [c.request.url.split("?")[0] for c in responses.calls] == [f"{SHOP}/shop.json", f"{SHOP}/orders.json"]
    row = db.execute(select(AdDailyMetric.date, AdDailyMetric.orders, AdDailyMetric.revenue)
                     .where(AdDailyMetric.connection_id == made.json["connection"]["id"])).one()
    assert (row.date.isoformat(), row.orders, row.revenue) == (today, 1, Decimal("42.00"))


@responses.activate
def test_google_ads_an_expired_access_token_is_renewed_once(monkeypatch):
    from chalicelib.providers.adplatforms import live as ads_live

    responses.post(GOOGLE_TOKEN_URL, json={"access_token": "ya29.OLD", "expires_in": 3599, "token_type": "Bearer"})
    responses.post(GOOGLE_TOKEN_URL, json={"access_token": "ya29.NEW", "expires_in": 3599, "token_type": "Bearer"})
    unauthenticated = {"error": {"code": 401, "message": "Request had invalid authentication credentials. Expected "
                                 "OAuth 2 access token, login cookie or other valid authentication credential.",
                                 "status": "UNAUTHENTICATED"}}
    responses.post(GADS, status=401, json=unauthenticated)
    responses.post(GADS, json={"results": [gads_row("111", "Brand", "2026-03-01", "1000000", "1", "1", 0, 0)]})
    ads = google()
    assert [r["campaign_id"] for r in ads.daily_metrics(date(2026, 3, 1), date(2026, 3, 1))] == ["111"]
    assert [c.request.headers.get("Authorization") for c in responses.calls if c.request.url == GADS] == [
        "Bearer ya29.OLD", "Bearer ya29.NEW"]
    responses.post(GADS, status=401, json=unauthenticated)  # refused again with a new token: the grant is gone
    with pytest.raises(CredentialsRefused, match="invalid authentication credentials"):
        ads.verify()
    # a token is kept until a minute before its expires_in, then renewed before the call
    import types

    now = [ads_live.time.time()]
    monkeypatch.setattr(ads_live, "time", types.SimpleNamespace(time=lambda: now[0]), raising=False)
    responses.post(GADS, json={"results": []})
    tokens = len([c for c in responses.calls if c.request.url == GOOGLE_TOKEN_URL])
    ads.verify()
    assert len([c for c in responses.calls if c.request.url == GOOGLE_TOKEN_URL]) == tokens
    now[0] += 3599 - 30
    ads.verify()
    assert len([c for c in responses.calls if c.request.url == GOOGLE_TOKEN_URL]) == tokens + 1


@responses.activate
def test_portal_connect_google_ads_live_needs_no_developer_token(portal, db, set_env):
    """Developer tokens were sunset on 2026-09-09 (https://developers.google.com/google-ads/api/docs/api-policy/
    developer-token): with only the agency's OAuth client configured, a client's Google Ads account connects, and
    no developer-token header is sent."""
    from tests.areas.portal.conftest import make_client

    set_env(ADPLATFORMS_MODE="live", GOOGLE_ADS_API_VERSION="v26", GOOGLE_ADS_CLIENT_ID="CID",
            GOOGLE_ADS_CLIENT_SECRET="CSECRET", GOOGLE_ADS_DEVELOPER_TOKEN=None)
    mine = make_client(db, dashboard=True)
    token_ok()
    responses.post(GADS, json={"results": [{"customer": {"resourceName": "customers/1234567890", "id": "1234567890",
                                                         "descriptiveName": "Acme AU", "currencyCode": "AUD"}}]})
    made = portal.post("/connections", mine, role="admin", json={
        "platform": "google_ads", "display_name": "Ads",
        "credentials": {"customer_id": "123-456-7890", "refresh_token": "1//RT"}})
    assert made.status == 201, made
    assert made.json["connection"]["account_name"] == "Acme AU"
    searches = [c.request for c in responses.calls if c.request.url == GADS]
    assert searches and all("developer-token" not in r.headers for r in searches)


@responses.activate
def test_portal_connect_meta_during_a_graph_outage_is_503_and_stores_nothing(portal, db, set_env):
    """Graph code 2 ("temporary issue due to downtime", typed OAuthException, is_transient) is not a refusal of
    the token: 503, nothing stored (https://developers.facebook.com/docs/graph-api/guides/error-handling)."""
    from sqlalchemy import func, select

    from chalicelib.areas.portal.models import AdConnection
    from tests.areas.portal.conftest import make_client

    set_env(ADPLATFORMS_MODE="live", META_API_VERSION="v25.0")
    mine = make_client(db, dashboard=True)
    responses.get(META, status=500, json={"error": {
        "message": "An unexpected error has occurred. Please retry your request later.", "type": "OAuthException",
        "is_transient": True, "code": 2, "fbtrace_id": "A9"}})
    answer = portal.post("/connections", mine, role="admin", json={
        "platform": "meta_ads", "display_name": "Meta", "credentials": {"ad_account_id": "act_998877",
                                                                          "access_token": "EAAB"}})
    assert answer.status == 503 and "retry your request later" in answer.json["error"]
    assert db.scalar(select(func.count()).select_from(AdConnection).where(AdConnection.company_id == mine.id)) == 0


@responses.activate
def test_platform_money_rounds_half_up_to_the_cent():
    """Google Ads' micros and Meta's figures become money to the cent half up, the service's one rule (core.money):
    Decimal's default tie to even stored 12,345,000 micros as 12.34 (numeric audit)."""
    token_ok()
    responses.post(GADS, json={"results": [gads_row("111", "Brand", "2026-03-01", "12345000", "10", "1",
                                                    "0.125", "2.125")]})
    rows = google().daily_metrics(date(2026, 3, 1), date(2026, 3, 1))
    assert (rows[0]["spend"], rows[0]["conversion_value"], rows[0]["conversions"]) == (
        Decimal("12.35"), Decimal("2.13"), Decimal("0.13"))
    responses.get(f"{META}/insights", json={"data": [meta_row("601", "2026-03-01", "0.125", "1", "2.125")]})
    (row,) = meta().daily_metrics(date(2026, 3, 1), date(2026, 3, 1))
    assert (row["spend"], row["conversion_value"]) == (Decimal("0.13"), Decimal("2.13"))
