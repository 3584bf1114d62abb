"""People Data Labs (API v5) through `requests`: company enrich, person enrich, person search.

Authentication: the `X-Api-Key` header. `GET /v5/company/enrich?name=&website=` answers the company record
(its fields at the top level, with `status` and `likelihood`); `GET /v5/person/enrich?profile=` answers
`{status, likelihood, data}`; `POST /v5/person/search` with `{query: <Elasticsearch>, size: 1}` answers
`{status, data: [...], total}`. The search's fields (`emails.address`, `full_name`, `job_company_name`) are
lower-case `keyword` fields in PDL's Elasticsearch mapping (https://docs.peopledatalabs.com/docs/elasticsearch-mapping),
so each is queried with a `term` of the lower-cased, whitespace-collapsed value. Errors answer
`{status, error: {type, message}}`: 404 means no record matched (None here); 402 credits exhausted is 503 with a clear
message; 429 rate limited is 503 naming when to retry, in whole seconds, as every adapter does
(`providers.http.rate_limited`, `retry_after` in the body too); 400, 401, 403 and 5xx are 502; a timeout is 504.
The wait comes from `x-ratelimit-reset`, which PDL documents as the time the window resets, in UTC
(https://docs.peopledatalabs.com/docs/usage-limits: "The UTC timestamp that indicates when the rate limit will
reset", e.g. "2022-02-23T20:19:55Z"; support/troubleshooting/rate-limit-errors: "when the window resets, in
UTC"; before July 2022 it was "UTC epoch seconds", e.g. 1516124358), not a number of seconds: it was passed on
raw as `retry_after`. Read as seconds from now (at least 1): an ISO 8601 date-time or an HTTP-date, or a number
of at least 10^9 as epoch seconds (a smaller number as seconds); when unreadable, `Retry-After`, else 1 second.
"""
from __future__ import annotations

import json
import math
import time
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

import requests

from chalicelib.core.errors import BadGateway, ServiceUnavailable
from chalicelib.providers import http as provider_http

DEFAULT_BASE_URL = "https://api.peopledatalabs.com/v5"


def _reset_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds from `now` until PDL's `x-ratelimit-reset` (a UTC date-time, or epoch seconds); None when unreadable."""
    text = (value or "").strip()
    if not text:
        return None
    now = time.time() if now is None else now
    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None:
        if not math.isfinite(number):
            return None
        return number - now if number >= 1e9 else number  # epoch seconds, else a number of seconds
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            moment = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
    moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)  # PDL's times are UTC
    return moment.timestamp() - now


def _retry_seconds(response) -> int:
    """Whole seconds to wait after PDL's 429 (at least 1): `x-ratelimit-reset`, else `Retry-After`, else 1."""
    wait = _reset_seconds(response.headers.get("x-ratelimit-reset"))
    if wait is None:
        wait = provider_http.retry_after(response)
    return max(1, math.ceil(wait))


def _finite(text: str) -> float | None:
    number = float(text)
    return number if math.isfinite(number) else None


def _json(content: bytes):
    """PDL's answer as JSON (RFC 8259), whose numbers are finite: `NaN`, `Infinity` and `-Infinity` (no JSON, which
    Python's reader takes) and a number past a float's range (1e400, read as infinity) cannot be read, and are null.
    The record is stored whole in a JSON column, which Postgres refuses with them: the store failed after the credit
    was spent, and each retry spent another (session 30). Its strings are cleaned (providers.http.clean_value, session
    30): a lone surrogate in the record was answered as JSON a strict reader refuses (a 500 on the enrich route)."""
    try:
        value = json.loads(content, parse_constant=lambda _: None, parse_float=_finite)
    except RecursionError as exc:  # a body nested deeper than json.loads reads: no JSON here (a 500 before)
        raise ValueError("a body nested too deep to read") from exc
    return provider_http.clean_value(value)


def _keyword(text: str) -> str:
    """A query value for one of PDL's lower-case keyword fields."""
    return " ".join(text.split()).lower()


class PeopleDataLabs:
    def __init__(self, *, api_key: str, base_url: str | None = None, timeout: float = 15.0) -> None:
        self.api_key = api_key
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.timeout = timeout

    def _call(self, method: str, path: str, *, params: dict | None = None, json: dict | None = None) -> dict | None:
        headers = {"X-Api-Key": self.api_key, "Accept": "application/json"}
        try:
            response = requests.request(method, f"{self.base_url}{path}", params=params, json=json, headers=headers,
                                        timeout=provider_http.call_timeout(self.timeout))
        except requests.Timeout as exc:
            raise provider_http.timed_out("The enrichment provider", exc) from exc
        except requests.RequestException as exc:
            raise BadGateway("The enrichment provider could not be reached") from exc
        if response.status_code == 404:
            return None
        try:
            body = _json(response.content)
        except ValueError:
            body = {}
        # PDL's error is `{"error": {"type", "message"}}`; one outside it (a string, a list) names no message
        # (session 30: `.get` on it was a 500 on the enrich routes)
        error = body.get("error") if isinstance(body, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        message = message if isinstance(message, str) else ""
        if response.status_code == 402:
            raise ServiceUnavailable("The enrichment provider's credits are exhausted (People Data Labs 402)")
        if response.status_code == 429:
            raise provider_http.rate_limited("The enrichment provider", _retry_seconds(response))
        if response.status_code in (401, 403):
            raise BadGateway("The enrichment provider refused the API key")
        if response.status_code != 200 or not isinstance(body, dict):
            raise BadGateway(f"The enrichment provider failed (HTTP {response.status_code}) {message}".strip())
        return body

    def enrich_company(self, *, name: str | None, website: str | None) -> dict | None:
        params = {key: value for key, value in (("name", name), ("website", website)) if value}
        return self._call("GET", "/company/enrich", params=params)

    def enrich_person(self, *, profile_url: str) -> dict | None:
        body = self._call("GET", "/person/enrich", params={"profile": profile_url})
        if body is None or not isinstance(body.get("data"), dict):
            return None
        return {**body["data"], "likelihood": body.get("likelihood")}

    def search_person(self, *, name: str | None, email: str | None, company: str | None) -> dict | None:
        # PDL's person fields are `keyword` fields holding lower-case text (Elasticsearch mapping,
        # https://docs.peopledatalabs.com/docs/elasticsearch-mapping): a query value must be the lower-cased,
        # whitespace-collapsed text, exactly as PDL stores it, or nothing matches.
        must = []
        if email:
            must.append({"term": {"emails.address": _keyword(email)}})
        if name:
            must.append({"term": {"full_name": _keyword(name)}})
        if company:
            must.append({"term": {"job_company_name": _keyword(company)}})
        body = self._call("POST", "/person/search", json={"query": {"bool": {"must": must}}, "size": 1})
        records = (body or {}).get("data") or []
        if not isinstance(records, list):  # a list of records (session 30: a record object's [0] was a 500)
            raise BadGateway("The enrichment provider answered records that are not a list")
        return records[0] if records and isinstance(records[0], dict) else None
