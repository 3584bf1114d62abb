"""The live orchestrator and business agents: plain HTTP through `requests`, with a per-call timeout.

Sent: `Accept: application/json`, the caller's identity (`X-WMS-User-Id`, `X-WMS-User-Email`, `X-WMS-User-Name`,
`X-WMS-Access-Level`, each only when the caller has it; percent-encoded UTF-8, see `identity_value`),
`Authorization: Bearer <ORCHESTRATOR_TOKEN>` when set,
the JSON body (not on a GET) and the query parameters as given. Redirects are not followed.
Answered: the upstream's status and JSON for 2xx and 4xx (`{}` for an empty body; a 429's JSON object gets
`retry_after`, the Retry-After header in whole seconds as providers.http reads it, or None when absent);
BadGateway (502) for a 5xx, a 1xx or a 3xx, an answer that is not JSON, a connection failure, or a request that
could not be built or sent (a ValueError / UnicodeError: the exception's type is named, never its text);
GatewayTimeout (504) for a timeout. No call is retried.
"""
from __future__ import annotations

import logging
from typing import Any
from urllib.parse import quote

import requests

from chalicelib.core.errors import BadGateway, GatewayTimeout, NotFound, ServiceUnavailable
from chalicelib.providers import http

log = logging.getLogger("wms.agents")
# kept as they are in an identity header: printable ASCII but `%` (the escape itself); letters, digits and
# `_.-~` are always kept by quote
_READABLE = " !\"#$&'()*+,/:;<=>?@[\\]^`{|}"


def identity_value(value) -> str:
    """An identity header's value as it travels (docs/decisions/agents.md, session 22): UTF-8, percent-encoded
    (RFC 3986 section 2.1) except printable ASCII other than `%`, so an ASCII name or address stays readable and
    `urllib.parse.unquote` gives back the value exactly. http.client sends header values as Latin-1: a name such
    as "Łukasz Nowak" or "李华" sent raw was a 500 (UnicodeEncodeError) on every live call. Control characters
    (CR, LF) are encoded too, and so are spaces at either end (requests refuses a value with leading
    whitespace)."""
    text = quote(str(value), safe=_READABLE)
    inner = text.strip(" ")
    if not inner:
        return "%20" * len(text)
    lead = len(text) - len(text.lstrip(" "))
    trail = len(text) - len(text.rstrip(" "))
    return "%20" * lead + inner + "%20" * trail


class HttpOrchestrator:
    def __init__(self, *, base_url: str | None, token: str | None, agents: list[dict], timeout: float = 15.0) -> None:
        self.base_url = (base_url or "").rstrip("/") or None
        self.token = token
        self.registry = {agent["id"]: agent for agent in agents}
        self.timeout = timeout

    def _headers(self, caller: dict) -> dict:
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        for header, key in (("X-WMS-User-Id", "id"), ("X-WMS-User-Email", "email"), ("X-WMS-User-Name", "name"),
                            ("X-WMS-Access-Level", "access_level")):
            if caller.get(key):
                headers[header] = identity_value(caller[key])
        return headers

    def _call(self, what: str, url: str, method: str, *, caller: dict, body: Any, params: dict | None):
        try:
            response = requests.request(method, url, json=body if method != "GET" else None, params=params or None,
                                        headers=self._headers(caller), timeout=http.call_timeout(self.timeout),
                                        allow_redirects=False)
        except http.OutOfTime as exc:
            raise http.timed_out(f"The {what}", exc) from exc
        except requests.Timeout as exc:
            raise GatewayTimeout(f"The {what} did not answer within {self.timeout:g} s") from exc
        except requests.RequestException as exc:
            raise BadGateway(f"The {what} cannot be reached ({type(exc).__name__})") from exc
        except ValueError as exc:  # UnicodeError included: a header or URL http.client cannot encode
            log.warning("the %s request could not be sent: %s", what, exc)
            raise BadGateway(f"The {what} request could not be sent ({type(exc).__name__})") from exc
        if response.status_code >= 500 or response.status_code < 200 or 300 <= response.status_code < 400:
            raise BadGateway(f"The {what} answered HTTP {response.status_code}")
        if not response.content:
            return response.status_code, {}
        try:
            data = http.read_json(response)  # no NUL, no lone surrogate (session 30)
        except ValueError as exc:
            raise BadGateway(f"The {what} answered a body that is not JSON") from exc
        if response.status_code == 429 and isinstance(data, dict):
            # whole seconds, as every adapter names them (providers.http.retry_after: seconds or an HTTP-date, 1 s
            # when unreadable or not finite, never below 0); None when no Retry-After was sent. The raw header was
            # answered as it came, a string, an HTTP-date or any text (session 30)
            data = {**data, "retry_after": http.whole_seconds(http.retry_after(response))
                    if "Retry-After" in response.headers else None}
        return response.status_code, data

    def orchestrator(self, method: str, path: str, *, caller: dict, body: Any = None, params: dict | None = None):
        if not self.base_url:
            raise ServiceUnavailable("The orchestrator is not configured (ORCHESTRATOR_URL is not set)")
        return self._call("orchestrator", self.base_url + path, method, caller=caller, body=body, params=params)

    def agents(self) -> list[dict]:
        return [{"id": agent["id"], "name": agent["name"]} for agent in self.registry.values()]

    def agent(self, agent_id: str, method: str, path: str, *, caller: dict, body: Any = None,
              params: dict | None = None):
        agent = self.registry.get(agent_id)
        if agent is None:
            raise NotFound("Business agent not found")
        if not agent.get("url"):
            raise ServiceUnavailable(f"The business agent {agent_id} has no URL (BUSINESS_AGENTS)")
        return self._call(f"business agent {agent_id}", agent["url"].rstrip("/") + path, method, caller=caller,
                          body=body, params=params)
