"""The orchestrator proxy and the business agent proxy (document 1; docs/decisions/agents.md).

Each call goes to the orchestrator provider (chalicelib/providers/orchestrator: live HTTP with base URLs from
settings, or the database sandbox) with the caller's identity. The upstream's JSON answer and status come back:
a 2xx object as is (a JSON array under the resource's plural key), a 4xx as `{error, upstream}` with the same
status; a 5xx, an answer that is not JSON or a connection failure is 502, a timeout 504, a provider not
configured 503. Live calls release the database connection first (a slow upstream holds no transaction).
"""
from __future__ import annotations

import re
from typing import Any

from chalicelib.core.errors import BadRequest, NotFound
from chalicelib.core.http import parse_json_body

TRIGGER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
MAX_PARAMS = 20


def _caller(ctx) -> dict:
    principal = ctx.principal
    user = principal.user
    return {"id": principal.id, "email": getattr(user, "email", None), "name": getattr(user, "name", None),
            "access_level": principal.access_level}


def _provider(ctx):
    from chalicelib.providers.orchestrator import get_orchestrator

    provider = get_orchestrator(db=ctx.db)
    if ctx.settings.provider_mode("orchestrator") == "live":
        ctx.release_connection()  # nothing was written; the upstream may be slow
    return provider


def request_body(ctx) -> dict:
    """The caller's JSON body, forwarded as sent: an object, or nothing (400 otherwise)."""
    data = parse_json_body(ctx.request)
    if not isinstance(data, dict):
        raise BadRequest("The request body must be a JSON object")
    return data


def query_params(ctx) -> dict:
    params = dict(ctx.request.query_params or {})
    if len(params) > MAX_PARAMS or any(len(str(v)) > 500 or len(str(k)) > 100 for k, v in params.items()):
        raise BadRequest("Too many or too long query parameters")
    return params


def shape(status: int, data: Any, *, what: str, key: str) -> tuple[int, dict]:
    """(status, body) answered to the caller."""
    if 200 <= status < 300:
        if isinstance(data, dict):
            return status, data
        return status, {key: data} if isinstance(data, list) else {"result": data}
    message = None
    if isinstance(data, dict):
        message = next((data[k] for k in ("error", "message", "detail") if isinstance(data.get(k), str)), None)
    return status, {"error": message or f"The {what} answered HTTP {status}", "upstream": data}


def orchestrator(ctx, method: str, path: str, *, key: str = "result", body: Any = None,
                 params: dict | None = None) -> tuple[int, dict]:
    provider = _provider(ctx)
    status, data = provider.orchestrator(method, path, caller=_caller(ctx), body=body, params=params)
    return shape(status, data, what="orchestrator", key=key)


def business_agents(ctx) -> list[dict]:
    from chalicelib.providers.orchestrator import get_orchestrator

    return get_orchestrator(db=ctx.db).agents()


def agent(ctx, agent_id: str, method: str, path: str, *, key: str = "result", body: Any = None,
          params: dict | None = None) -> tuple[int, dict]:
    if len(agent_id) > 100:
        raise NotFound("Business agent not found")
    provider = _provider(ctx)
    status, data = provider.agent(agent_id, method, path, caller=_caller(ctx), body=body, params=params)
    return shape(status, data, what=f"business agent {agent_id}", key=key)


def trigger(ctx, agent_id: str, name: str, body: dict) -> tuple[int, dict]:
    if not TRIGGER_NAME.match(name):
        raise BadRequest("Invalid trigger name", details=[{"field": "name", "message": "letters, digits, _ . - "
                                                                                       "(at most 100)"}])
    return agent(ctx, agent_id, "POST", f"/trigger/{name}", body=body)
