"""The live orchestrator and business agents: plain HTTP through `requests`, with a per-call timeout.

Sent: `Accept: application/json`, the caller's identity (`X-WMS-User-Id`, `X-WMS-User-Email`, `X-WMS-User-Name`,
`X-WMS-Access-Level`, each only when the caller has it), `Authorization: Bearer <ORCHESTRATOR_TOKEN>` when set,
the JSON body (not on a GET) and the query parameters as given. Redirects are not followed.
Answered: the upstream's status and JSON for 2xx and 4xx (`{}` for an empty body; a 429's JSON object gets
`retry_after`, the Retry-After header as sent or None); BadGateway (502) for a 5xx, a 1xx or a 3xx, an answer
that is not JSON, or a connection failure; GatewayTimeout (504) for a timeout. No call is retried.
"""
from __future__ import annotations

from typing import Any

import requests

from chalicelib.core.errors import BadGateway, GatewayTimeout, NotFound, ServiceUnavailable


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
                headers[header] = str(caller[key])
        return headers

    def _call(self, what: str, url: str, method: str, *, caller: dict, body: Any, params: dict | None):
        try:
            response = requests.request(method, url, json=body if method != "GET" else None, params=params or None,
                                        headers=self._headers(caller), timeout=self.timeout, allow_redirects=False)
        except requests.Timeout as exc:
            raise GatewayTimeout(f"The {what} did not answer within {self.timeout:g} s") from exc
        except requests.RequestException as exc:
            raise BadGateway(f"The {what} cannot be reached ({type(exc).__name__})") from exc
        if response.status_code >= 500 or response.status_code < 200 or 300 <= response.status_code < 400:
            raise BadGateway(f"The {what} answered HTTP {response.status_code}")
        if not response.content:
            return response.status_code, {}
        try:
            data = response.json()
        except ValueError as exc:
            raise BadGateway(f"The {what} answered a body that is not JSON") from exc
        if response.status_code == 429 and isinstance(data, dict):
            data = {**data, "retry_after": response.headers.get("Retry-After")}
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
