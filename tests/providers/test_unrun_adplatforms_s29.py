"""Session 29, code no test ran in the live ad-platform adapters (chalicelib/providers/adplatforms/live.py): the
numbers and error bodies the platforms may answer besides the documented ones, the token endpoint's other
answers, the page bounds, and Meta's and Shopify's remaining error branches. Bodies follow the documents cited in
tests/providers/test_adplatforms_wire.py."""
import json
from datetime import date
from decimal import Decimal

import pytest
import requests
import responses

from chalicelib.core.errors import BadGateway, ServiceUnavailable
from chalicelib.providers.adplatforms import live
from chalicelib.providers.adplatforms.base import CredentialsRefused, GoogleAdsCredentials
from chalicelib.providers.adplatforms.live import (GOOGLE_TOKEN_URL, GoogleAds, _google_errors, google_error_codes,
                                                   google_message, google_retry_delay, meta_regain_seconds)
from tests.areas.portal.test_connections_live import meta, shopify
from tests.providers.test_adplatforms_wire import GADS, META, SHOP, google, google_failure, graph_error, token_ok


def _answer(status=200, *, body=None, text=None, headers=None):
    response = requests.Response()
    response.status_code = status
    response._content = (json.dumps(body) if text is None else text).encode()
    response.headers.update(headers or {})
    return response


# ------------------------------------------------------------------ numbers

@responses.activate
def test_a_number_that_is_not_finite_or_not_a_number_is_read_as_zero():
    """Session 29: `_decimal` read "NaN" as Decimal NaN (stored as spend and summed into every total) and
    "Infinity" failed the cent rounding; `_int` of either raised: a 500 on connect or sync. A value that is no
    finite number is unreadable, read as 0 as "abc" always was; "12.7" as an int is 12."""
    responses.get(f"{META}/insights", json={"data": [
        {"campaign_id": "1", "campaign_name": "A", "date_start": "2026-03-01", "spend": "NaN",
         "impressions": "Infinity", "clicks": "12.7", "actions": [{"action_type": "purchase", "value": "sNaN"}]},
        {"campaign_id": "2", "campaign_name": "B", "date_start": "2026-03-01", "spend": "abc", "impressions": "NaN",
         "clicks": [3]},
        {"campaign_name": "no id", "date_start": "2026-03-01", "spend": "5"}]})
    rows = meta().daily_metrics(date(2026, 3, 1), date(2026, 3, 1))
    assert [(r["campaign_id"], r["spend"], r["impressions"], r["clicks"], r["conversions"]) for r in rows] == [
        ("1", Decimal("0.00"), 0, 12, Decimal("0.00")), ("2", Decimal("0.00"), 0, 0, Decimal("0.00"))]


# ------------------------------------------------------------------ Google Ads error bodies

def test_google_error_bodies_that_are_not_json_a_list_or_an_error_string():
    assert google_message(_answer(502, text="<html>502</html>")) == "HTTP 502"
    listed = [google_failure(400, "INVALID_ARGUMENT", "Bad GAQL.", {"queryError": "BAD_FIELD_NAME"})]
    assert google_message(_answer(400, body=listed)) == "Bad GAQL."  # searchStream answers a list
    assert _google_errors(_answer(400, body=listed))[0]["errorCode"] == {"queryError": "BAD_FIELD_NAME"}
    assert google_message(_answer(400, body={"error": "invalid_request"})) == "invalid_request"
    assert google_message(_answer(400, body={"other": 1})) == "HTTP 400"
    assert _google_errors(_answer(502, text="nope")) == []
    assert _google_errors(_answer(400, body={"error": "invalid_request"})) == []
    assert google_error_codes(_answer(400, body=listed)) == {("queryError", "BAD_FIELD_NAME")}
    assert google_error_codes(_answer(502, text="nope")) == set()


def test_a_quota_error_whose_retry_delay_is_unreadable_waits_a_second():
    def quota(delay):
        return _answer(429, body=google_failure(429, "RESOURCE_EXHAUSTED", "Too many requests.",
                                                {"quotaError": "RESOURCE_EXHAUSTED"},
                                                {"quotaErrorDetails": {"retryDelay": delay}}))

    assert google_retry_delay(quota("soons")) == 1.0
    assert google_retry_delay(quota("2.5s")) == 2.5
    assert google_retry_delay(quota("Infinitys")) == 1.0  # session 29: no infinite wait (int(inf) was a 500)
    assert google_retry_delay(quota("NaNs")) == 1.0


@responses.activate
def test_a_quota_error_asking_an_infinite_wait_waits_a_second_and_retries(waits):
    """Session 29: retryDelay "Infinitys" (float reads it) raised OverflowError naming the 503's whole seconds,
    a 500; it is unreadable, a second's wait as an absent one."""
    token_ok()
    responses.post(GADS, status=429, json=google_failure(
        429, "RESOURCE_EXHAUSTED", "Too many requests.", {"quotaError": "RESOURCE_EXHAUSTED"},
        {"quotaErrorDetails": {"retryDelay": "Infinitys"}}))
    responses.post(GADS, json={"results": [{"customer": {"descriptiveName": "Acme", "currencyCode": "AUD"}}]})
    assert google().verify() == {"account_name": "Acme", "currency": "AUD"}
    assert waits == [1.0]


@responses.activate
def test_google_ads_a_503_is_503_and_another_failure_502():
    token_ok()
    responses.post(GADS, status=503, json={"error": {"code": 503, "message": "The service is currently unavailable.",
                                                     "status": "UNAVAILABLE"}})
    with pytest.raises(ServiceUnavailable, match="currently unavailable"):
        google().verify()
    responses.reset()
    token_ok()
    responses.post(GADS, status=500, json={"error": {"code": 500, "message": "Internal error encountered.",
                                                     "status": "INTERNAL"}})
    with pytest.raises(BadGateway, match="Internal error encountered"):
        google().verify()


@responses.activate
def test_google_ads_answering_pages_without_end_is_502(monkeypatch):
    monkeypatch.setattr(live, "MAX_PAGES", 2)
    token_ok()
    responses.post(GADS, json={"results": [], "nextPageToken": "next"})
    with pytest.raises(BadGateway, match="too many pages"):
        google().verify()


# ------------------------------------------------------------------ Google's token endpoint

@responses.activate
def test_the_token_endpoints_other_answers():
    responses.post(GOOGLE_TOKEN_URL, status=400, body="<html>Bad Request</html>")  # not JSON: the refresh token
    with pytest.raises(CredentialsRefused):
        google().verify()
    responses.reset()
    responses.post(GOOGLE_TOKEN_URL, status=500, body="oops")
    with pytest.raises(BadGateway, match="token endpoint answered HTTP 500"):
        google().verify()
    responses.reset()
    responses.post(GOOGLE_TOKEN_URL, json={"token_type": "Bearer"})
    with pytest.raises(BadGateway, match="no access token"):
        google().verify()


@responses.activate
def test_an_unreadable_expires_in_keeps_the_token_an_hour():
    responses.post(GOOGLE_TOKEN_URL, json={"access_token": "ya29.AT", "expires_in": "soon"})
    responses.post(GADS, json={"results": [{"customer": {"descriptiveName": "Acme", "currencyCode": "AUD"}}]})
    ads = google()
    assert ads.verify() == {"account_name": "Acme", "currency": "AUD"}
    assert ads.verify() == {"account_name": "Acme", "currency": "AUD"}
    assert [c.request.url for c in responses.calls].count(GOOGLE_TOKEN_URL) == 1  # kept, not asked again


# ------------------------------------------------------------------ Meta

def test_meta_regain_time_from_an_unreadable_usage_header_is_a_minute():
    assert meta_regain_seconds(_answer(400, body={}, headers={"X-Business-Use-Case-Usage": "not json"})) == 60.0
    assert meta_regain_seconds(_answer(400, body={}, headers={"X-Business-Use-Case-Usage": "[1, 2]"})) == 60.0


@responses.activate
def test_meta_other_oauth_exceptions_and_403s_refuse_and_anything_else_is_502():
    """Graph error handling (https://developers.facebook.com/docs/graph-api/guides/error-handling): an
    OAuthException of no listed code, or an HTTP 403, refuses the access; another error is the platform's."""
    responses.get(META, status=400, json=graph_error("Something about the session.", 999))
    with pytest.raises(CredentialsRefused, match="about the session"):
        meta().verify()
    responses.reset()
    responses.get(META, status=403, json=graph_error("Forbidden.", 999, type_="GraphMethodException"))
    with pytest.raises(CredentialsRefused, match="Forbidden"):
        meta().verify()
    responses.reset()
    responses.get(META, status=500, json=graph_error("Unknown failure.", 999, type_="GraphMethodException"))
    with pytest.raises(BadGateway, match="Unknown failure"):
        meta().verify()
    responses.reset()
    responses.get(META, status=500, json={"error": "plain text error"})
    with pytest.raises(BadGateway, match="HTTP 500"):
        meta().verify()


@responses.activate
def test_meta_answering_pages_without_end_is_502(monkeypatch):
    monkeypatch.setattr(live, "MAX_PAGES", 2)
    responses.get(f"{META}/insights", json={"data": [], "paging": {"next": f"{META}/insights?after=X"}})
    with pytest.raises(BadGateway, match="too many pages"):
        meta().daily_metrics(date(2026, 3, 1), date(2026, 3, 1))


# ------------------------------------------------------------------ Shopify

@responses.activate
def test_shopify_503_is_503_and_a_failure_without_json_names_its_status(monkeypatch):
    responses.get(f"{SHOP}/shop.json", status=503, body="Service Unavailable")
    with pytest.raises(ServiceUnavailable, match="Shopify is unavailable"):
        shopify().verify()
    responses.reset()
    responses.get(f"{SHOP}/shop.json", status=500, body="<html>oops</html>")
    with pytest.raises(BadGateway, match="HTTP 500"):
        shopify().verify()
    responses.reset()
    responses.get(f"{SHOP}/shop.json", status=422, json={"errors": {"created_at_min": ["is invalid"]}})
    with pytest.raises(BadGateway, match="is invalid"):
        shopify().verify()


@responses.activate
def test_shopify_answering_pages_without_end_is_502(monkeypatch):
    monkeypatch.setattr(live, "MAX_PAGES", 2)
    responses.get(f"{SHOP}/orders.json", json={"orders": []},
                  headers={"Link": f'<{SHOP}/orders.json?page_info=abc&limit=250>; rel="next"'})
    with pytest.raises(BadGateway, match="too many pages"):
        shopify().daily_metrics(date(2026, 3, 1), date(2026, 3, 1))


def test_the_credentials_base_class_names_no_account():
    from chalicelib.providers.adplatforms.base import _Credentials

    with pytest.raises(NotImplementedError):
        _Credentials().account_id()
    assert GoogleAdsCredentials(customer_id="123-456-7890", refresh_token="x", login_customer_id="").login_customer_id \
        is None
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="10-digit Google Ads customer id"):
        GoogleAdsCredentials(customer_id="12345678901", refresh_token="x")
