"""The live ad platforms, through `requests` (http.send: 429 with Retry-After, 502/503/504).

- Google Ads API over REST: an access token from the client's OAuth refresh token
  (`POST https://oauth2.googleapis.com/token`, grant_type=refresh_token, the agency's OAuth client), then
  `POST /vNN/customers/<id>/googleAds:search` with a GAQL query, headers `Authorization: Bearer`,
  `developer-token` and `login-customer-id` (manager account, when given); pages through `nextPageToken`.
  int64 metrics come as strings, cost in micros. The access token is kept until a minute before its
  `expires_in`; a 401 from the API (an expired or revoked access token) gets a new one and retries once.
- Meta Marketing API: `GET /vNN.0/act_<id>/insights` with level=campaign, time_increment=1, time_range,
  fields spend, impressions, clicks, actions, action_values; pages through `paging.next`. Purchases are read
  from the first purchase action type present (Meta repeats the same count under several types).
- Shopify Admin REST: `GET /admin/api/<version>/orders.json` with `X-Shopify-Access-Token`, status=any and
  created_at bounds; pages through the `Link: <...>; rel="next"` header. Revenue is the orders' current total
  price, cancelled orders left out, per shop-local date.

A refusal of the credentials (401/403, an invalid grant, Meta's OAuthException) is CredentialsRefused (400 when
connecting); other failures are 502 with the platform's own message, never a token.
"""
from __future__ import annotations

import json
import time
from datetime import date
from decimal import Decimal, InvalidOperation

from chalicelib.core.errors import BadGateway

from chalicelib.providers import http

from .base import SHOPIFY_STORE_CAMPAIGN, CredentialsRefused, empty_row

GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token"
GOOGLE_ADS_BASE = "https://googleads.googleapis.com"
META_BASE = "https://graph.facebook.com"
MAX_PAGES = 500
TIMEOUT = 30.0  # seconds a platform may take to answer one request (reports can be slow)
META_PURCHASE_TYPES = ("omni_purchase", "purchase", "offsite_conversion.fb_pixel_purchase")
META_RATE_LIMIT_CODES = {4, 17, 32, 613, *range(80000, 80015)}


def _decimal(value) -> Decimal:
    try:
        return Decimal(str(value)) if value not in (None, "") else Decimal("0")
    except InvalidOperation:
        return Decimal("0")


def _int(value) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return int(_decimal(value))


# ---------------------------------------------------------------- Google Ads

def google_message(response) -> str:
    try:
        body = response.json()
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


class GoogleAds:
    platform = "google_ads"
    NAME = "Google Ads"

    def __init__(self, *, credentials, developer_token: str, client_id: str, client_secret: str, version: str,
                 max_wait: float) -> None:
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
            raise CredentialsRefused(f"Google refused the refresh token: {google_message(response)}")
        if response.status_code >= 300:
            raise BadGateway(f"Google's token endpoint answered HTTP {response.status_code}")
        body = http.json_body(response, self.NAME)
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
        headers = {"Authorization": f"Bearer {self._access_token()}", "developer-token": self.developer_token,
                   "Content-Type": "application/json"}
        if self.credentials.login_customer_id:
            headers["login-customer-id"] = self.credentials.login_customer_id
        return headers

    def search(self, query: str) -> list[dict]:
        """Every row of a GAQL query, following nextPageToken."""
        url = f"{GOOGLE_ADS_BASE}/{self.version}/customers/{self.credentials.customer_id}/googleAds:search"
        rows, token, renewed = [], None, False
        for _ in range(MAX_PAGES):
            body = {"query": query}
            if token:
                body["pageToken"] = token
            response = http.send("POST", url, name=self.NAME, max_wait=self.max_wait, timeout=TIMEOUT, json=body,
                                 headers=self._headers())
            if response.status_code == 401 and not renewed:  # the access token expired: a new one, once
                renewed, self._token = True, None
                response = http.send("POST", url, name=self.NAME, max_wait=self.max_wait, timeout=TIMEOUT,
                                     json=body, headers=self._headers())
            if response.status_code in (401, 403):
                raise CredentialsRefused(f"Google Ads refused the access: {google_message(response)}")
            if response.status_code == 503:
                from chalicelib.core.errors import ServiceUnavailable

                raise ServiceUnavailable(f"Google Ads is unavailable: {google_message(response)}")
            if response.status_code >= 300:
                raise BadGateway(f"Google Ads failed: {google_message(response)}")
            data = http.json_body(response, self.NAME)
            rows.extend(data.get("results") or [])
            token = data.get("nextPageToken")
            if not token:
                return rows
        raise BadGateway("Google Ads answered too many pages")

    def verify(self) -> dict:
        rows = self.search("SELECT customer.id, customer.descriptive_name, customer.currency_code FROM customer LIMIT 1")
        customer = (rows[0].get("customer") if rows else None) or {}
        return {"account_name": customer.get("descriptiveName") or self.credentials.customer_id,
                "currency": customer.get("currencyCode")}

    def daily_metrics(self, since: date, until: date) -> list[dict]:
        query = ("SELECT campaign.id, campaign.name, segments.date, metrics.cost_micros, metrics.impressions, "
                 "metrics.clicks, metrics.conversions, metrics.conversions_value FROM campaign "
                 f"WHERE segments.date BETWEEN '{since.isoformat()}' AND '{until.isoformat()}'")
        out = []
        for row in self.search(query):
            campaign, metrics = row.get("campaign") or {}, row.get("metrics") or {}
            day = (row.get("segments") or {}).get("date")
            if not day or not campaign.get("id"):
                continue
            item = empty_row(str(campaign["id"]), (campaign.get("name") or str(campaign["id"]))[:300],
                             date.fromisoformat(day))
            item.update(spend=(_decimal(metrics.get("costMicros")) / 1_000_000).quantize(Decimal("0.01")),
                        impressions=_int(metrics.get("impressions")), clicks=_int(metrics.get("clicks")),
                        conversions=_decimal(metrics.get("conversions")).quantize(Decimal("0.01")),
                        conversion_value=_decimal(metrics.get("conversionsValue")).quantize(Decimal("0.01")))
            out.append(item)
        return out


# ---------------------------------------------------------------- Meta

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
            return body
        error = error if isinstance(error, dict) else {}
        message = str(error.get("message") or f"HTTP {response.status_code}")
        code = _int(error.get("code"))
        if code in META_RATE_LIMIT_CODES:
            raise http.rate_limited(self.NAME, 60)
        if code == 190 or error.get("type") == "OAuthException" or response.status_code in (401, 403):
            raise CredentialsRefused(f"Meta refused the access: {message}")
        if code == 100 and "does not exist" in message:
            raise CredentialsRefused(f"Meta refused the ad account: {message}")
        if response.status_code >= 500 and error.get("is_transient"):
            from chalicelib.core.errors import ServiceUnavailable

            raise ServiceUnavailable(f"Meta is unavailable: {message}")
        raise BadGateway(f"Meta failed: {message}")

    def verify(self) -> dict:
        body = self._get(f"{META_BASE}/{self.version}/{self.credentials.account_id()}",
                         {"fields": "name,account_status,currency"})
        return {"account_name": body.get("name") or self.credentials.account_id(), "currency": body.get("currency")}

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
            "fields": "campaign_id,campaign_name,spend,impressions,clicks,actions,action_values"}
        out = []
        for _ in range(MAX_PAGES):
            body = self._get(url, params)
            for row in body.get("data") or []:
                if not row.get("campaign_id") or not row.get("date_start"):
                    continue
                item = empty_row(str(row["campaign_id"]), (row.get("campaign_name") or row["campaign_id"])[:300],
                                 date.fromisoformat(row["date_start"]))
                item.update(spend=_decimal(row.get("spend")).quantize(Decimal("0.01")),
                            impressions=_int(row.get("impressions")), clicks=_int(row.get("clicks")),
                            conversions=self._purchases(row.get("actions")).quantize(Decimal("0.01")),
                            conversion_value=self._purchases(row.get("action_values")).quantize(Decimal("0.01")))
                out.append(item)
            following = (body.get("paging") or {}).get("next")
            if not following:
                return out
            url, params = following, None  # the next URL carries every parameter
        raise BadGateway("Meta answered too many pages")


# ---------------------------------------------------------------- Shopify

def shopify_message(response) -> str:
    try:
        errors = response.json().get("errors")
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
            from chalicelib.core.errors import ServiceUnavailable

            raise ServiceUnavailable("Shopify is unavailable")
        if response.status_code >= 300:
            raise BadGateway(f"Shopify failed: {shopify_message(response)}")
        return response

    def verify(self) -> dict:
        shop = http.json_body(self._get(f"{self.base}/shop.json", None), self.NAME).get("shop") or {}
        return {"account_name": shop.get("name") or self.credentials.shop_domain, "currency": shop.get("currency")}

    def daily_metrics(self, since: date, until: date) -> list[dict]:
        url = f"{self.base}/orders.json"
        params: dict | None = {"status": "any", "limit": 250, "created_at_min": f"{since.isoformat()}T00:00:00",
                               "created_at_max": f"{until.isoformat()}T23:59:59",
                               "fields": "id,created_at,current_total_price,total_price,cancelled_at"}
        days: dict[str, dict] = {}
        for _ in range(MAX_PAGES):
            response = self._get(url, params)
            for order in http.json_body(response, self.NAME).get("orders") or []:
                created = str(order.get("created_at") or "")[:10]  # shop-local date of the order
                if not created or order.get("cancelled_at"):
                    continue
                day = created
                if not since.isoformat() <= day <= until.isoformat():
                    continue
                row = days.setdefault(day, empty_row(*SHOPIFY_STORE_CAMPAIGN, date.fromisoformat(day)))
                row["orders"] += 1
                row["revenue"] += _decimal(order.get("current_total_price") or order.get("total_price"))
            following = response.links.get("next", {}).get("url")
            if not following:
                return [days[key] for key in sorted(days)]
            url, params = following, None  # page_info URLs must carry no other filter
        raise BadGateway("Shopify answered too many pages")
