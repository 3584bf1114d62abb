"""The live ad-platform adapters against the wire format of the platforms' own documents (`responses`, no network):
error bodies and what each means, throttling hints, and the request bounds the documents prescribe. Each mocked
body follows the document cited next to it."""
import json
from datetime import date, datetime, timezone
from decimal import Decimal
from urllib.parse import parse_qs, urlparse

import pytest
import responses

from chalicelib.core.errors import BadGateway, GatewayTimeout, ServiceUnavailable
from chalicelib.providers.adplatforms.base import (CredentialsRefused, GoogleAdsCredentials)
from chalicelib.providers.adplatforms.live import GOOGLE_TOKEN_URL, GoogleAds
from tests.areas.portal.test_connections_live import meta, shopify

GADS = "https://googleads.googleapis.com/v26/customers/1234567890/googleAds:search"
META = "https://graph.facebook.com/v25.0/act_998877"
SHOP = "https://acme.myshopify.com/admin/api/2026-07"


def google(developer_token="DEV-TOKEN"):
    creds = GoogleAdsCredentials(customer_id="123-456-7890", refresh_token="1//RT")
    return GoogleAds(credentials=creds, developer_token=developer_token, client_id="CID", client_secret="CSECRET",
                     version="v26", max_wait=5)


def token_ok():
    # https://developers.google.com/identity/protocols/oauth2/web-server#offline (refresh-token grant answer)
    responses.post(GOOGLE_TOKEN_URL, json={"access_token": "ya29.AT", "expires_in": 3599, "token_type": "Bearer",
                                           "scope": "https://www.googleapis.com/auth/adwords"})


def google_failure(status, rpc_status, message, error_code, details=None):
    """A Google Ads REST error: google.rpc.Status whose details carry a GoogleAdsFailure
    (https://developers.google.com/google-ads/api/docs/best-practices/understand-api-errors)."""
    error = {"errorCode": error_code, "message": message}
    if details:
        error["details"] = details
    return {"error": {"code": status, "message": message, "status": rpc_status, "details": [
        {"@type": "type.googleapis.com/google.ads.googleads.v26.errors.GoogleAdsFailure", "errors": [error],
         "requestId": "gB1aQ"}]}}


# ------------------------------------------------------------------ Google Ads

@responses.activate
def test_google_ads_429_waits_the_retry_delay_of_its_quota_error(waits):
    """Google Ads sends no Retry-After: the wait is QuotaErrorDetails.retryDelay, a protobuf Duration
    (https://developers.google.com/google-ads/api/reference/rpc/v26/QuotaErrorDetails)."""
    token_ok()
    responses.post(GADS, status=429, json=google_failure(
        429, "RESOURCE_EXHAUSTED", "Too many requests. Retry in 3 seconds.",
        {"quotaError": "RESOURCE_TEMPORARILY_EXHAUSTED"},
        {"quotaErrorDetails": {"rateScope": "ACCOUNT", "rateName": "Requests per account", "retryDelay": "3s"}}))
    responses.post(GADS, json={"results": [{"campaign": {"resourceName": "customers/1234567890/campaigns/111",
                                                         "id": "111", "name": "Brand"},
                                            "metrics": {"costMicros": "2500000", "impressions": "10", "clicks": "2"},
                                            "segments": {"date": "2026-03-01"}}]})
    rows = google().daily_metrics(date(2026, 3, 1), date(2026, 3, 1))
    assert waits == [3.0]
    assert [(r["campaign_id"], r["spend"], r["conversions"]) for r in rows] == [("111", Decimal("2.50"),
                                                                                Decimal("0.00"))]


@responses.activate
def test_google_ads_429_with_a_retry_delay_past_max_wait_is_503_naming_it_without_retrying(waits):
    token_ok()
    exhausted = responses.post(GADS, status=429, json=google_failure(
        429, "RESOURCE_EXHAUSTED", "Too many requests.", {"quotaError": "RESOURCE_EXHAUSTED"},
        {"quotaErrorDetails": {"rateScope": "DEVELOPER", "rateName": "Number of operations for basic access",
                               "retryDelay": "3600s"}}))
    with pytest.raises(ServiceUnavailable) as raised:
        google().verify()
    assert raised.value.extra == {"retry_after": 3600}
    assert exhausted.call_count == 1 and waits == []


@responses.activate
def test_google_ads_a_refusal_of_the_agencys_cloud_project_is_503_not_the_clients_credentials():
    """Since the developer-token sunset (2026-09-09) a Test-level Cloud project reading a real account gets
    CLOUD_PROJECT_NOT_APPROVED_FOR_PRODUCTION (https://developers.google.com/google-ads/api/docs/api-policy/
    developer-token); an API not enabled in the project is a google.rpc.ErrorInfo SERVICE_DISABLED
    (https://cloud.google.com/apis/design/errors#error_info). Neither is the client's refresh token."""
    token_ok()
    responses.post(GADS, status=403, json=google_failure(
        403, "PERMISSION_DENIED", "The Google Cloud project is only approved for use with test accounts.",
        {"authorizationError": "CLOUD_PROJECT_NOT_APPROVED_FOR_PRODUCTION"}))
    with pytest.raises(ServiceUnavailable, match="only approved for use with test accounts"):
        google().verify()
    responses.reset()
    token_ok()
    responses.post(GADS, status=403, json={"error": {
        "code": 403, "status": "PERMISSION_DENIED",
        "message": "Google Ads API has not been used in project 123 before or it is disabled.",
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "SERVICE_DISABLED",
                     "domain": "googleapis.com",
                     "metadata": {"service": "googleads.googleapis.com", "consumer": "projects/123"}}]}})
    with pytest.raises(ServiceUnavailable, match="has not been used in project"):
        google().verify()
    responses.reset()
    token_ok()  # the client's own access refused stays a refusal
    responses.post(GADS, status=403, json=google_failure(
        403, "PERMISSION_DENIED", "User doesn't have permission to access customer.",
        {"authorizationError": "USER_PERMISSION_DENIED"}))
    with pytest.raises(CredentialsRefused, match="permission to access customer"):
        google().verify()


@responses.activate
def test_google_token_endpoint_invalid_client_is_the_agencys_oauth_client_not_the_refresh_token():
    """RFC 6749 5.2 as Google answers it: invalid_client (401) is the OAuth client, invalid_grant (400) the
    refresh token (https://developers.google.com/identity/protocols/oauth2/web-server#exchange-errors)."""
    responses.post(GOOGLE_TOKEN_URL, status=401, json={"error": "invalid_client",
                                                       "error_description": "The OAuth client was not found."})
    with pytest.raises(ServiceUnavailable, match="OAuth client was not found"):
        google().verify()
    responses.reset()
    responses.post(GOOGLE_TOKEN_URL, status=400, json={"error": "invalid_grant", "error_description": "Bad Request"})
    with pytest.raises(CredentialsRefused):
        google().verify()


@responses.activate
def test_google_ads_without_a_developer_token_sends_no_developer_token_header():
    """Developer tokens were sunset on 2026-09-09: the header is optional and ignored
    (https://developers.google.com/google-ads/api/docs/api-policy/developer-token)."""
    token_ok()
    responses.post(GADS, json={"results": [{"customer": {"resourceName": "customers/1234567890", "id": "1234567890",
                                                         "descriptiveName": "Acme AU", "currencyCode": "AUD"}}]})
    assert google(developer_token=None).verify() == {"account_name": "Acme AU", "currency": "AUD"}
    sent = responses.calls[1].request.headers
    assert "developer-token" not in sent and sent["Authorization"] == "Bearer ya29.AT"


# ------------------------------------------------------------------ Meta

def graph_error(message, code, *, type_="OAuthException", subcode=None, transient=None):
    """A Graph API error body (https://developers.facebook.com/docs/graph-api/guides/error-handling)."""
    error = {"message": message, "type": type_, "code": code, "fbtrace_id": "AbCdEf"}
    if subcode is not None:
        error["error_subcode"] = subcode
    if transient is not None:
        error["is_transient"] = transient
    return {"error": error}


@responses.activate
def test_meta_errors_typed_oauthexception_are_not_all_refused_credentials():
    """Graph typing is not the meaning: the code is. Code 2 is a temporary outage (retry later), code 100 a bad
    parameter, 341 an application limit; only 190/102/10/200-299 (and an OAuthException of no known code)
    refuse the token (https://developers.facebook.com/docs/graph-api/guides/error-handling)."""
    responses.get(META, status=500, json=graph_error("An unexpected error has occurred. Please retry your request "
                                                     "later.", 2, transient=True))
    with pytest.raises(ServiceUnavailable, match="retry your request later"):
        meta().verify()
    responses.reset()
    responses.get(META, status=400, json=graph_error("(#100) Tried accessing nonexisting field (bogus) on node type "
                                                     "(AdAccount)", 100))
    with pytest.raises(BadGateway, match="nonexisting field"):
        meta().verify()
    responses.reset()
    responses.get(META, status=400, json=graph_error("(#341) Application limit reached", 341))
    with pytest.raises(ServiceUnavailable, match="rate limiting"):
        meta().verify()
    responses.reset()
    responses.get(META, status=403, json=graph_error("(#200) Ad account owner has NOT grant ads_management or "
                                                     "ads_read permission", 200))
    with pytest.raises(CredentialsRefused, match="ads_read"):
        meta().verify()
    responses.reset()
    responses.get(META, status=400, json=graph_error("Unsupported get request. Object with ID 'act_998877' does not "
                                                     "exist, cannot be loaded due to missing permissions, or does not "
                                                     "support this operation.", 100, type_="GraphMethodException",
                                                     subcode=33))
    with pytest.raises(CredentialsRefused, match="does not exist"):
        meta().verify()


@responses.activate
def test_meta_insights_timeout_is_504_and_a_bad_breakdown_502():
    """Ads Insights error codes: 100/1504018 and 2/1504038 "Request Timed Out", 2/1504041 "Invalid Breakdowns"
    (https://developers.facebook.com/documentation/ads-commerce/marketing-api/insights/error-codes)."""
    responses.get(f"{META}/insights", status=400, json=graph_error(
        "Your request timed out. Try a smaller date range, fetch less data, or use async jobs.", 100,
        subcode=1504018))
    with pytest.raises(GatewayTimeout, match="smaller date range"):
        meta().daily_metrics(date(2025, 1, 1), date(2026, 3, 1))
    responses.reset()
    responses.get(f"{META}/insights", status=400, json=graph_error(
        "No data is available for the requested metrics and breakdowns.", 2, subcode=1504041))
    with pytest.raises(BadGateway, match="requested metrics"):
        meta().daily_metrics(date(2026, 3, 1), date(2026, 3, 1))


@responses.activate
def test_meta_throttling_names_the_business_use_case_regain_time():
    """Ads insights throttling (code 80000) comes with X-Business-Use-Case-Usage, whose
    estimated_time_to_regain_access is in minutes
    (https://developers.facebook.com/docs/graph-api/overview/rate-limiting#business-use-case-rate-limits)."""
    usage = {"998877": [{"type": "ads_insights", "call_count": 100, "total_cputime": 48, "total_time": 52,
                         "estimated_time_to_regain_access": 5, "ads_api_access_tier": "standard_access"}]}
    responses.get(f"{META}/insights", status=400, headers={"X-Business-Use-Case-Usage": json.dumps(usage)},
                  json=graph_error("There have been too many calls from this ad-account. Wait a bit and try again.",
                                   80000))
    with pytest.raises(ServiceUnavailable) as raised:
        meta().daily_metrics(date(2026, 3, 1), date(2026, 3, 1))
    assert raised.value.extra == {"retry_after": 300}


@responses.activate
def test_meta_insights_ask_for_deleted_and_archived_campaigns_too():
    """An ad account's insights leave out DELETED (and ARCHIVED) objects unless the query filters on their
    effective_status (https://developers.facebook.com/docs/marketing-api/best-practices/
    manage-your-ad-object-status): the spend of a campaign deleted since is still the account's spend."""
    rows = [{"campaign_id": "601", "campaign_name": "Live", "spend": "10.00", "impressions": "100", "clicks": "3",
             "date_start": "2026-03-01", "date_stop": "2026-03-01", "status": "ACTIVE"},
            {"campaign_id": "602", "campaign_name": "Deleted since", "spend": "25.50", "impressions": "300",
             "clicks": "9", "date_start": "2026-03-01", "date_stop": "2026-03-01", "status": "DELETED"},
            {"campaign_id": "603", "campaign_name": "Archived", "spend": "4.00", "impressions": "40", "clicks": "1",
             "date_start": "2026-03-01", "date_stop": "2026-03-01", "status": "ARCHIVED"}]

    def answer(request):
        query = {key: values[0] for key, values in parse_qs(urlparse(request.url).query).items()}
        shown = {"ACTIVE", "PAUSED"}  # what an unfiltered account query shows
        for rule in json.loads(query.get("filtering", "[]")):
            if rule.get("field") == "ad.effective_status" and rule.get("operator") == "IN":
                shown = set(rule["value"])
        data = [{k: v for k, v in row.items() if k != "status"} for row in rows if row["status"] in shown]
        return 200, {"Content-Type": "application/json"}, json.dumps(
            {"data": data, "paging": {"cursors": {"before": "MAZDZD", "after": "MAZDZD"}}})

    responses.add_callback(responses.GET, f"{META}/insights", callback=answer)
    got = meta().daily_metrics(date(2026, 3, 1), date(2026, 3, 1))
    assert [(r["campaign_id"], r["spend"]) for r in got] == [
        ("601", Decimal("10.00")), ("602", Decimal("25.50")), ("603", Decimal("4.00"))]


# ------------------------------------------------------------------ Shopify

def shopify_orders(orders):
    """A callback answering GET orders.json as the Order resource documents it
    (https://shopify.dev/docs/api/admin-rest/2026-07/resources/order#get-orders): created_at_min/max are
    ISO 8601 with an offset (2014-04-25T16:15:47-04:00); a bound sent without one is read here as UTC."""
    def answer(request):
        query = {key: values[0] for key, values in parse_qs(urlparse(request.url).query).items()}

        def instant(text):
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
            return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)

        low, high = instant(query["created_at_min"]), instant(query["created_at_max"])
        kept = [o for o in orders if low <= datetime.fromisoformat(o["created_at"]) <= high]
        return 200, {"Content-Type": "application/json"}, json.dumps({"orders": kept})
    return answer


@pytest.mark.parametrize("offset, first, last", [
    ("+11:00", "2026-03-01T05:00:00+11:00", "2026-03-02T23:00:00+11:00"),  # east of UTC: the first morning
    ("-10:00", "2026-03-01T01:00:00-10:00", "2026-03-02T20:00:00-10:00"),  # west of UTC: the last evening
])
@responses.activate
def test_shopify_order_bounds_carry_an_offset_and_cover_the_shops_local_days(offset, first, last):
    """The orders of the shop-local days asked for, wherever the shop is: the bounds are sent with an offset,
    wide enough for any shop timezone, and the orders kept by the local date of their created_at (REST answers
    it in the shop's timezone)."""
    orders = [
        {"id": 1, "created_at": first, "current_total_price": "10.00", "cancelled_at": None},
        {"id": 2, "created_at": last, "current_total_price": "20.00", "cancelled_at": None},
        {"id": 3, "created_at": f"2026-02-28T12:00:00{offset}", "current_total_price": "99.00", "cancelled_at": None},
        {"id": 4, "created_at": f"2026-03-03T12:00:00{offset}", "current_total_price": "99.00", "cancelled_at": None},
    ]
    responses.add_callback(responses.GET, f"{SHOP}/orders.json", callback=shopify_orders(orders))
    rows = shopify().daily_metrics(date(2026, 3, 1), date(2026, 3, 2))
    sent = parse_qs(urlparse(responses.calls[0].request.url).query)
    assert all(datetime.fromisoformat(sent[key][0].replace("Z", "+00:00")).tzinfo
               for key in ("created_at_min", "created_at_max"))
    assert [(r["date"], r["orders"], r["revenue"]) for r in rows] == [
        (date(2026, 3, 1), 1, Decimal("10.00")), (date(2026, 3, 2), 1, Decimal("20.00"))]
