"""The live ad platforms, through `requests` (http.send: 429 with Retry-After, 502/503/504). Each choice below
follows the platform's own reference (wire-format audit of 2026-11; the tests cite the pages).

- Google Ads API over REST (https://developers.google.com/google-ads/api/rest/overview):
  - Auth: an access token from the client's OAuth refresh token (`POST https://oauth2.googleapis.com/token`,
    form grant_type=refresh_token, client_id, client_secret of the agency's OAuth client); Google does not
    rotate refresh tokens on this grant. The access token is kept until a minute before its `expires_in`; a
    401 from the API (expired or revoked) gets a new one and retries once. invalid_grant (400) refuses the
    client's refresh token (CredentialsRefused, 400); invalid_client (401) is the agency's OAuth client: 503.
  - `POST /vNN/customers/<10 digits>/googleAds:search`, body `{query, pageToken?}` (no pageSize: rejected
    since v17, pages are 10,000 rows), paging through `nextPageToken` until it is absent. Headers
    `Authorization: Bearer`, `login-customer-id` (the manager account, digits, when given) and
    `developer-token` only when GOOGLE_ADS_DEVELOPER_TOKEN is set: developer tokens were sunset on 2026-09-09
    (the header is optional and ignored; API access is the OAuth client's Cloud project's).
  - Answers are proto3 JSON in camelCase: `results[].campaign.{id,name}`, `segments.date` (YYYY-MM-DD),
    `metrics.costMicros` / `impressions` / `clicks` (int64, so strings; cost in micros), `conversions` and
    `conversionsValue` (doubles); a zero field is left out (read as 0).
  - Errors are a google.rpc.Status whose `details[]` hold a GoogleAdsFailure (`errors[].errorCode` and
    `message`, read for the message). 429 carries no Retry-After: the wait is the QuotaErrorDetails
    `retryDelay` (a Duration, "30s"), waited once when at most ADPLATFORMS_MAX_RETRY_WAIT, else 503 naming it.
    A refusal of the agency's project (CLOUD_PROJECT_NOT_APPROVED_FOR_PRODUCTION, the DEVELOPER_TOKEN_* codes,
    PROJECT_DISABLED, an ErrorInfo SERVICE_DISABLED) is 503, not the client's credentials; any other 401/403
    is CredentialsRefused; 503 is 503; the rest 502 with Google's message.
- Meta Marketing API (Graph; https://developers.facebook.com/docs/marketing-api/insights):
  - `GET /vNN.0/act_<id>/insights`, `Authorization: Bearer <token>`, level=campaign, time_increment=1,
    time_range as JSON `{"since","until"}`, limit=500, fields campaign_id, campaign_name, spend, impressions,
    clicks, actions, action_values, and a `filtering` on every ad.effective_status: without it an account's
    insights leave out deleted and archived campaigns, whose spend still happened. Every number is a string;
    a row's day is `date_start`. Pages through `paging.next` (a URL carrying every parameter) until absent.
    Purchases are read from the first purchase action type present (Meta repeats the same count under several
    types). The account itself: `GET /vNN.0/act_<id>?fields=name,account_status,currency`.
  - Errors are `{"error": {message, type, code, error_subcode, is_transient, fbtrace_id}}`, told apart by code
    (the type is OAuthException for most of them, outages and bad parameters included): throttling (4, 17,
    32, 341, 613, 80000-80014) is 503 naming the X-Business-Use-Case-Usage `estimated_time_to_regain_access`
    (minutes; 60 s when absent); an insights timeout (subcodes 1504018, 1504038) 504; code 2 or is_transient
    503 (not the bad-breakdown subcodes 1504041/1504042: 502); code 1 502; 10, 102, 190 and 200-299 (and 401)
    refuse the token; code 100 on an unknown or unshared ad account (subcode 33, "does not exist") refuses the
    account, any other code 100 (a bad parameter) is 502; an OAuthException of no other code, or a 403, refuses.
- Shopify Admin REST (https://shopify.dev/docs/api/admin-rest/<version>/resources/order; REST is legacy since
  2024-10 but still served to custom apps): `GET https://<shop>.myshopify.com/admin/api/<version>/orders.json`
  with `X-Shopify-Access-Token`, status=any, limit=250, fields, and created_at_min/max as ISO 8601 with an
  offset (the documented form; UTC, a day wider each side so any shop timezone is covered); pages through the
  `Link: <...>; rel="next"` header, whose page_info URL takes no other filter. `created_at` comes in the shop's
  timezone, so an order counts on the local date it carries; revenue is `current_total_price` (after edits
  and refunds), cancelled orders left out. Without the read_all_orders scope Shopify answers only the last 60
  days (a longer backfill reads what it is given). 401/403/404 refuse the token or shop; 429 waits Retry-After;
  `{"errors": ...}` is the message.

A refusal of the credentials is CredentialsRefused (400 when connecting; the sync's error later); other
failures are 502/503/504 with the platform's own message, never a token.
"""
from __future__ import annotations

import json
import math
import time
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation

from chalicelib.core.errors import BadGateway, GatewayTimeout, ServiceUnavailable
from chalicelib.core.money import cents  # money to the cent, half up (the service's one rule)

from chalicelib.providers import http

from .base import SHOPIFY_STORE_CAMPAIGN, AgencySetupError, CredentialsRefused, empty_row

GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token"
GOOGLE_ADS_BASE = "https://googleads.googleapis.com"
META_BASE = "https://graph.facebook.com"
MAX_PAGES = 500
TIMEOUT = 30.0  # seconds a platform may take to answer one request (reports can be slow)
META_PURCHASE_TYPES = ("omni_purchase", "purchase", "offsite_conversion.fb_pixel_purchase")
# Graph API error codes (https://developers.facebook.com/docs/graph-api/guides/error-handling, Marketing API
# rate limiting, Ads Insights error codes): throttling; the access refused; a sync insights query that timed out;
# code 2 subcodes that are a bad query rather than an outage
META_RATE_LIMIT_CODES = {4, 17, 32, 341, 613, *range(80000, 80015)}
META_AUTH_CODES = {10, 102, 190, *range(200, 300)}
META_TIMEOUT_SUBCODES = {1504018, 1504038}
META_BAD_QUERY_SUBCODES = {1504041, 1504042}
# every ad effective_status (facebook-python-business-sdk Ad.EffectiveStatus): an account's insights leave out
# deleted and archived objects unless asked for by status (https://developers.facebook.com/docs/marketing-api/
# best-practices/manage-your-ad-object-status), and their past spend is spend all the same
META_AD_STATUSES = ("ACTIVE", "ADSET_PAUSED", "ARCHIVED", "CAMPAIGN_PAUSED", "DELETED", "DISAPPROVED", "IN_PROCESS",
                    "PAUSED", "PENDING_BILLING_INFO", "PENDING_REVIEW", "PREAPPROVED", "WITH_ISSUES")
# GoogleAdsFailure error codes that refuse the agency's developer token or Cloud project, not the client's access
# (since the developer-token sunset of 2026-09-09, the access level is the OAuth client's Cloud project's:
# CLOUD_PROJECT_NOT_APPROVED_FOR_PRODUCTION when a Test-level project reads a real account)
GOOGLE_AGENCY_CODES = {"CLOUD_PROJECT_NOT_APPROVED_FOR_PRODUCTION", "DEVELOPER_TOKEN_NOT_APPROVED",
                       "DEVELOPER_TOKEN_PROHIBITED", "DEVELOPER_TOKEN_INVALID", "DEVELOPER_TOKEN_NOT_ON_ALLOWLIST",
                       "PROJECT_DISABLED", "SERVICE_DISABLED"}


# A figure at or past this is no money (nor a count, nor micros of money): read as 0. The figures' columns hold
# less than 10^14 (Numeric(16, 2)) and Google's cost comes in micros (10^6 a unit), so 10^20 bounds every figure
# a platform can mean, well within what Decimal rounds to the cent (28 digits).
MAX_FIGURE = Decimal(10) ** 20


def _decimal(value) -> Decimal:
    """A platform's number; one that is unreadable, not finite ("NaN", "Infinity") or past MAX_FIGURE ("1e999") is
    0 (session 29: NaN was stored as spend and summed into every total, and Infinity, then 1e999, failed the
    rounding to the cent: InvalidOperation)."""
    try:
        number = Decimal(str(value)) if value not in (None, "") else Decimal("0")
    except InvalidOperation:
        return Decimal("0")
    return number if number.is_finite() and abs(number) < MAX_FIGURE else Decimal("0")


def _int(value) -> int:
    """A platform's count; as `_decimal`, one past MAX_FIGURE is 0 (an unquoted 1e999, which json reads as inf,
    raised OverflowError; session 29)."""
    try:
        number = int(value or 0)
    except (TypeError, ValueError, OverflowError):
        return int(_decimal(value))
    return number if abs(number) < MAX_FIGURE else 0


def _object(value, name: str, what: str) -> dict:
    """`value` (a row's `campaign`, `metrics`, `segments`, a body's `paging`; None is an empty one) as an object;
    anything else is outside the platform's documented answer: the platform's 502 naming `what` (session 30: `.get`
    on it raised AttributeError, and the sync recorded only "The sync failed (AttributeError)")."""
    return http.one_object(value, f"{name} answered {what} that is not an object")


def _day(value, name: str, what: str) -> date:
    """A row's day (`segments.date`, `date_start`, the date of an order's `created_at`), YYYY-MM-DD; one that cannot be
    read is the platform's 502 naming `what` (session 30: date.fromisoformat's ValueError or TypeError failed the
    sync as "The sync failed (ValueError)"). A row is never left out for it: its figures would be missing unseen."""
    try:
        if isinstance(value, str):
            return date.fromisoformat(value[:10])
    except ValueError:
        pass
    raise BadGateway(f"{name} answered {what} that is not a date")


def _campaign_id(value, name: str) -> str:
    """A campaign's id (Google's int64 as a string, Meta's string): a string or an integer of at most 100 characters
    (the figures' `campaign_id`); anything else (an object, a boolean) is the platform's 502."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or len(str(value)) > 100:
        raise BadGateway(f"{name} answered a campaign id that cannot be read")
    return str(value)


# ---------------------------------------------------------------- Google Ads

def google_message(response) -> str:
    try:
        body = http.read_json(response)
    except ValueError:
        return f"HTTP {response.status_code}"
    if isinstance(body, list) and body:
        body = body[0]
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        messages = [e.get("message") for detail in error.get("details") or [] if isinstance(detail, dict)
                    for e in detail.get("errors") or [] if e.get("message")]
        return "; ".join(messages) or str(error.get("message") or error.get("status") or f"HTTP {response.status_code}")
    if isinstance(body, dict) and body.get("error_description"):
        return str(body["error_description"])
    return str(error or f"HTTP {response.status_code}")


def _google_errors(response) -> list[dict]:
    """The GoogleAdsError entries of an error body (`error.details[].errors[]`, a list body for searchStream)."""
    try:
        body = http.read_json(response)
    except ValueError:
        return []
    if isinstance(body, list) and body:
        body = body[0]
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return []
    return [e for detail in error.get("details") or [] if isinstance(detail, dict)
            for e in detail.get("errors") or [] if isinstance(e, dict)]


def google_error_codes(response) -> set[tuple[str, str]]:
    """(category, value) of each `errorCode`, e.g. ("authorizationError", "USER_PERMISSION_DENIED")."""
    codes = {(str(category), str(value)) for e in _google_errors(response)
             for category, value in (e.get("errorCode") or {}).items()}
    try:  # a google.rpc.ErrorInfo (e.g. SERVICE_DISABLED: the API not enabled in the agency's Cloud project)
        details = http.read_json(response).get("error", {}).get("details") or []
    except (ValueError, AttributeError):
        details = []
    return codes | {("errorInfo", str(d["reason"])) for d in details if isinstance(d, dict) and d.get("reason")}


def _sent_retry_after(response) -> float | None:
    """A 429's `Retry-After` when sent (providers.http.send waits it); None leaves the 429 to GoogleAds._post,
    which reads the quota error's retryDelay."""
    return http.retry_after(response) if "Retry-After" in response.headers else None


def google_retry_delay(response) -> float:
    """Seconds to wait after a 429 without `Retry-After` (http.send waits a sent one, `_sent_retry_after`: the
    branch that read it here was never reached, removed in session 29): the QuotaErrorDetails `retryDelay` (a
    protobuf Duration such as "30s") of the GoogleAdsFailure; 1 s when it is absent, unreadable or not finite
    ("Infinitys" made the 503's whole seconds int(inf), a 500)."""
    for e in _google_errors(response):
        raw = str(((e.get("details") or {}).get("quotaErrorDetails") or {}).get("retryDelay") or "").strip()
        if raw.endswith("s"):
            try:
                seconds = float(raw[:-1])
            except ValueError:
                continue
            if math.isfinite(seconds):
                return max(0.0, seconds)
    return 1.0


class GoogleAds:
    platform = "google_ads"
    NAME = "Google Ads"

    def __init__(self, *, credentials, developer_token: str | None, client_id: str, client_secret: str,
                 version: str, max_wait: float) -> None:
        self.credentials = credentials
        self.developer_token, self.client_id, self.client_secret = developer_token, client_id, client_secret
        self.version, self.max_wait = version, max_wait
        self._token: str | None = None
        self._token_expires = 0.0

    def _access_token(self) -> str:
        if self._token and time.time() < self._token_expires:
            return self._token
        response = http.send("POST", GOOGLE_TOKEN_URL, name=self.NAME, max_wait=self.max_wait, timeout=TIMEOUT, data={
            "grant_type": "refresh_token", "refresh_token": self.credentials.refresh_token,
            "client_id": self.client_id, "client_secret": self.client_secret})
        if response.status_code in (400, 401):
            try:
                grant_error = (http.read_json(response) or {}).get("error")
            except (ValueError, AttributeError):
                grant_error = None
            if grant_error == "invalid_client":  # the agency's OAuth client, not the client's refresh token
                raise AgencySetupError(f"Google refused the agency's OAuth client (GOOGLE_ADS_CLIENT_ID/SECRET): "
                                         f"{google_message(response)}")
            raise CredentialsRefused(f"Google refused the refresh token: {google_message(response)}")
        if response.status_code >= 300:
            raise BadGateway(f"Google's token endpoint answered HTTP {response.status_code}")
        body = http.json_object(response, self.NAME)
        token = body.get("access_token")
        if not token:
            raise BadGateway("Google's token endpoint answered no access token")
        try:
            lifetime = float(body.get("expires_in") or 3600)
        except (TypeError, ValueError):
            lifetime = 3600.0
        self._token, self._token_expires = token, time.time() + max(0.0, lifetime - 60)
        return token

    def _headers(self) -> dict:
        headers = {"Authorization": f"Bearer {self._access_token()}", "Content-Type": "application/json"}
        if self.developer_token:  # optional and ignored since the 2026-09-09 sunset; sent while configured
            headers["developer-token"] = self.developer_token
        if self.credentials.login_customer_id:
            headers["login-customer-id"] = self.credentials.login_customer_id
        return headers

    def _post(self, url: str, body: dict):
        """The answer to one search call: a 401 (the access token expired) gets a new token and one retry; a 429
        waits its retryDelay (Google Ads sends no Retry-After) when that is at most max_wait, once, else 503."""
        renewed = waited = False
        while True:
            response = http.send("POST", url, name=self.NAME, max_wait=self.max_wait, timeout=TIMEOUT, json=body,
                                 headers=self._headers(), wait_of=_sent_retry_after)
            if response.status_code == 401 and not renewed:
                renewed, self._token = True, None
                continue
            if response.status_code == 429:
                wait = google_retry_delay(response)
                if waited or wait > self.max_wait or not http.wait_fits(wait):  # or past the request's deadline
                    raise http.rate_limited(self.NAME, wait)
                waited = True
                http.sleep(wait)
                continue
            return response

    def search(self, query: str) -> list[dict]:
        """Every row of a GAQL query, following nextPageToken."""
        url = f"{GOOGLE_ADS_BASE}/{self.version}/customers/{self.credentials.customer_id}/googleAds:search"
        rows, token = [], None
        for _ in range(MAX_PAGES):
            body = {"query": query}
            if token:
                body["pageToken"] = token
            response = self._post(url, body)
            if response.status_code >= 300:
                codes = google_error_codes(response)
                if any(value in GOOGLE_AGENCY_CODES for _, value in codes):
                    raise AgencySetupError(f"Google Ads refused the agency's developer token or project: "
                                             f"{google_message(response)}")
                if response.status_code in (401, 403):
                    raise CredentialsRefused(f"Google Ads refused the access: {google_message(response)}")
                if response.status_code == 503:
                    raise ServiceUnavailable(f"Google Ads is unavailable: {google_message(response)}")
                raise BadGateway(f"Google Ads failed: {google_message(response)}")
            data = http.json_object(response, self.NAME)
            rows.extend(http.objects(data.get("results"), self.NAME, "results"))
            token = data.get("nextPageToken")
            if not token:
                return rows
        raise BadGateway("Google Ads answered too many pages")

    def verify(self) -> dict:
        rows = self.search("SELECT customer.id, customer.descriptive_name, customer.currency_code FROM customer LIMIT 1")
        customer = _object(rows[0].get("customer") if rows else None, self.NAME, "a customer")
        return {"account_name": http.text(customer.get("descriptiveName")) or self.credentials.customer_id,
                "currency": http.text(customer.get("currencyCode"))}

    def daily_metrics(self, since: date, until: date) -> list[dict]:
        query = ("SELECT campaign.id, campaign.name, segments.date, metrics.cost_micros, metrics.impressions, "
                 "metrics.clicks, metrics.conversions, metrics.conversions_value FROM campaign "
                 f"WHERE segments.date BETWEEN '{since.isoformat()}' AND '{until.isoformat()}'")
        out = []
        for row in self.search(query):
            campaign = _object(row.get("campaign"), self.NAME, "a row's campaign")
            metrics = _object(row.get("metrics"), self.NAME, "a row's metrics")
            day = _object(row.get("segments"), self.NAME, "a row's segments").get("date")
            if not day or not campaign.get("id"):
                continue
            campaign_id = _campaign_id(campaign["id"], self.NAME)
            item = empty_row(campaign_id, (http.text(campaign.get("name")) or campaign_id)[:300],
                             _day(day, self.NAME, "a row's segments.date"))
            item.update(spend=cents(_decimal(metrics.get("costMicros")) / 1_000_000),
                        impressions=_int(metrics.get("impressions")), clicks=_int(metrics.get("clicks")),
                        conversions=cents(_decimal(metrics.get("conversions"))),
                        conversion_value=cents(_decimal(metrics.get("conversionsValue"))))
            out.append(item)
        return out


# ---------------------------------------------------------------- Meta

def meta_regain_seconds(response) -> float:
    """Seconds until Meta lets the calls through again: the largest `estimated_time_to_regain_access` (minutes)
    of the X-Business-Use-Case-Usage header, else 60."""
    try:
        usage = json.loads(response.headers.get("X-Business-Use-Case-Usage") or "{}")
        minutes = max((_int(entry.get("estimated_time_to_regain_access")) for entries in usage.values()
                       for entry in entries or [] if isinstance(entry, dict)), default=0)
    except (ValueError, AttributeError, TypeError):
        minutes = 0
    return float(minutes * 60) if minutes > 0 else 60.0


class MetaAds:
    platform = "meta_ads"
    NAME = "Meta"

    def __init__(self, *, credentials, version: str, max_wait: float) -> None:
        self.credentials, self.version, self.max_wait = credentials, version, max_wait

    def _get(self, url: str, params: dict | None) -> dict:
        headers = {"Authorization": f"Bearer {self.credentials.access_token}"}
        response = http.send("GET", url, name=self.NAME, max_wait=self.max_wait, timeout=TIMEOUT, params=params,
                             headers=headers)
        body = http.json_body(response, self.NAME)
        error = body.get("error") if isinstance(body, dict) else None
        if response.status_code < 300 and not error:
            if not isinstance(body, dict):  # session 29: a JSON list was returned, and .get on it was a 500
                raise BadGateway(f"Meta answered a body that is not a JSON object (HTTP {response.status_code})")
            return body
        error = error if isinstance(error, dict) else {}
        message = str(error.get("message") or f"HTTP {response.status_code}")
        code, subcode = _int(error.get("code")), _int(error.get("error_subcode"))
        if code in META_RATE_LIMIT_CODES:
            raise http.rate_limited(self.NAME, meta_regain_seconds(response))
        if subcode in META_TIMEOUT_SUBCODES:
            raise GatewayTimeout(f"Meta timed out: {message}")
        if code in (1, 2) or error.get("is_transient"):
            if error.get("is_transient") or (code == 2 and subcode not in META_BAD_QUERY_SUBCODES):
                raise ServiceUnavailable(f"Meta is unavailable: {message}")
            raise BadGateway(f"Meta failed: {message}")
        if code in META_AUTH_CODES or response.status_code == 401:
            raise CredentialsRefused(f"Meta refused the access: {message}")
        if code == 100:  # invalid parameter; the ad account unknown or not shared with the token's user
            if subcode == 33 or "does not exist" in message:
                raise CredentialsRefused(f"Meta refused the ad account: {message}")
            raise BadGateway(f"Meta failed: {message}")
        if error.get("type") == "OAuthException" or response.status_code == 403:
            raise CredentialsRefused(f"Meta refused the access: {message}")
        raise BadGateway(f"Meta failed: {message}")

    def verify(self) -> dict:
        body = self._get(f"{META_BASE}/{self.version}/{self.credentials.account_id()}",
                         {"fields": "name,account_status,currency"})
        return {"account_name": http.text(body.get("name")) or self.credentials.account_id(),
                "currency": http.text(body.get("currency"))}

    @staticmethod
    def _purchases(entries) -> Decimal:
        by_type = {e.get("action_type"): e.get("value") for e in entries or [] if isinstance(e, dict)}
        for kind in META_PURCHASE_TYPES:
            if kind in by_type:
                return _decimal(by_type[kind])
        return Decimal("0")

    def daily_metrics(self, since: date, until: date) -> list[dict]:
        url = f"{META_BASE}/{self.version}/{self.credentials.account_id()}/insights"
        params: dict | None = {
            "level": "campaign", "time_increment": 1, "limit": 500,
            "time_range": json.dumps({"since": since.isoformat(), "until": until.isoformat()}),
            "fields": "campaign_id,campaign_name,spend,impressions,clicks,actions,action_values",
            "filtering": json.dumps([{"field": "ad.effective_status", "operator": "IN",
                                      "value": list(META_AD_STATUSES)}])}
        out = []
        for _ in range(MAX_PAGES):
            body = self._get(url, params)
            for row in http.objects(body.get("data"), self.NAME, "insights rows"):
                if not row.get("campaign_id") or not row.get("date_start"):
                    continue
                campaign_id = _campaign_id(row["campaign_id"], self.NAME)
                item = empty_row(campaign_id, (http.text(row.get("campaign_name")) or campaign_id)[:300],
                                 _day(row["date_start"], self.NAME, "a row's date_start"))
                item.update(spend=cents(_decimal(row.get("spend"))),
                            impressions=_int(row.get("impressions")), clicks=_int(row.get("clicks")),
                            conversions=cents(self._purchases(row.get("actions"))),
                            conversion_value=cents(self._purchases(row.get("action_values"))))
                out.append(item)
            following = _object(body.get("paging"), self.NAME, "paging").get("next")
            if not following:
                return out
            if not isinstance(following, str):
                raise BadGateway(f"{self.NAME} answered a next page that is not a URL")
            url, params = following, None  # the next URL carries every parameter
        raise BadGateway("Meta answered too many pages")


# ---------------------------------------------------------------- Shopify

def shopify_message(response) -> str:
    try:
        errors = http.read_json(response).get("errors")
    except (ValueError, AttributeError):
        errors = None
    return str(errors)[:300] if errors else f"HTTP {response.status_code}"


class Shopify:
    platform = "shopify"
    NAME = "Shopify"

    def __init__(self, *, credentials, version: str, max_wait: float) -> None:
        self.credentials, self.version, self.max_wait = credentials, version, max_wait
        self.base = f"https://{credentials.shop_domain}/admin/api/{version}"

    def _get(self, url: str, params: dict | None):
        response = http.send("GET", url, name=self.NAME, max_wait=self.max_wait, timeout=TIMEOUT, params=params,
                             headers={"X-Shopify-Access-Token": self.credentials.access_token,
                                      "Accept": "application/json"})
        if response.status_code in (401, 403, 404):
            raise CredentialsRefused(f"Shopify refused the access: {shopify_message(response)}")
        if response.status_code == 503:
            raise ServiceUnavailable("Shopify is unavailable")
        if response.status_code >= 300:
            raise BadGateway(f"Shopify failed: {shopify_message(response)}")
        return response

    def verify(self) -> dict:
        shop = http.json_object(self._get(f"{self.base}/shop.json", None), self.NAME).get("shop") or {}
        shop = shop if isinstance(shop, dict) else {}
        return {"account_name": http.text(shop.get("name")) or self.credentials.shop_domain,
                "currency": http.text(shop.get("currency"))}

    def daily_metrics(self, since: date, until: date) -> list[dict]:
        url = f"{self.base}/orders.json"
        # the documented bound format carries an offset (2014-04-25T16:15:47-04:00); the shop's own offset is
        # not known here, so the bounds are UTC and a day wider each side (every offset is within +-14 h), and
        # the orders are kept by the shop-local date of their created_at
        params: dict | None = {"status": "any", "limit": 250,
                               "created_at_min": f"{(since - timedelta(days=1)).isoformat()}T00:00:00Z",
                               "created_at_max": f"{(until + timedelta(days=1)).isoformat()}T23:59:59Z",
                               "fields": "id,created_at,current_total_price,total_price,cancelled_at"}
        days: dict[str, dict] = {}
        for _ in range(MAX_PAGES):
            response = self._get(url, params)
            for order in http.objects(http.json_object(response, self.NAME).get("orders"), self.NAME, "orders"):
                created = order.get("created_at")
                if not created or order.get("cancelled_at"):
                    continue
                day = _day(created, self.NAME, "an order's created_at")  # the shop-local date of the order
                if not since <= day <= until:
                    continue
                row = days.setdefault(day.isoformat(), empty_row(*SHOPIFY_STORE_CAMPAIGN, day))
                row["orders"] += 1
                row["revenue"] += _decimal(order.get("current_total_price") or order.get("total_price"))
            following = response.links.get("next", {}).get("url")
            if not following:
                return [days[key] for key in sorted(days)]
            url, params = following, None  # page_info URLs must carry no other filter
        raise BadGateway("Shopify answered too many pages")
