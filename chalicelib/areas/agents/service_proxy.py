"""The orchestrator proxy and the business agent proxy (document 1; docs/decisions/agents.md).

Each call goes to the orchestrator provider (chalicelib/providers/orchestrator: live HTTP with base URLs from
settings, or the database sandbox) with the caller's identity. The upstream's JSON answer and status come back:
a 2xx object as is (a JSON array under the resource's plural key), a 4xx as `{error, upstream}` with the same
status but a 401 or 407 (the service's own credentials refused: 502, session 26); a 5xx, an answer that is not JSON or a connection failure is 502, a timeout 504, a provider not
configured 503. Live calls release the database connection first (a slow upstream holds no transaction).
"""
from __future__ import annotations

import logging
import re
from typing import Any

from chalicelib.core.errors import BadRequest, DomainError, NotFound
from chalicelib.core.http import parse_json_body

log = logging.getLogger("wms.agents")
ACTIONS_AGENT = "actions"

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
    if status in (401, 407):
        # the upstream refused the SERVICE's credentials (the caller was authenticated here): a 401 passed on read as
        # the caller's own, and a client would sign its user out (session 26); the agency's setup is at fault: 502
        return 502, {"error": f"The {what} refused the service's credentials (HTTP {status})", "upstream": data}
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
    if not TRIGGER_NAME.fullmatch(name):
        # the path parameter as the route spells it (session 32: `name`, no parameter of the route)
        raise BadRequest("Invalid trigger name", details=[{"field": "trigger_name", "message": "must be letters, "
                                                                                               "digits, _ . - (at most 100)"}])
    return agent(ctx, agent_id, "POST", f"/trigger/{name}", body=body)


# --- the actions agent (issue 13 item 6) ----------------------------------------------------------------

def unstar_after_commit(ctx, *, action_item_id: str, source_module: str, source_type: str | None,
                        source_id: str | None) -> None:
    """Once the transaction has committed, ask the actions agent to unstar the item at its source (chat or
    mail): `POST /command {command: "unstar", args: {...}}` to the business agent `actions`."""
    caller = _caller(ctx)
    args = {"action_item_id": action_item_id, "source_module": source_module, "source_type": source_type,
            "source_id": source_id, "user_id": caller["id"]}
    ctx.after_commit(lambda: send_unstar(caller, args))


def send_unstar(caller: dict, args: dict) -> str | None:
    """Ask the actions agent; a failure (not registered, unreachable, refused) is recorded on the action item's
    history (`unstar_failed`, with the reason) and logged, never raised. Answers the failure or None."""
    from chalicelib.core import history
    from chalicelib.core.context import job_context
    from chalicelib.providers.orchestrator import get_orchestrator

    error = None
    with job_context() as jctx:
        try:
            status, data = get_orchestrator(db=jctx.db).agent(ACTIONS_AGENT, "POST", "/command", caller=caller,
                                                              body={"command": "unstar", "args": args})
            if status >= 400:
                error = shape(status, data, what="actions agent", key="result")[1]["error"]
        except DomainError as exc:
            error = exc.message
        except Exception as exc:  # noqa: BLE001 - the item is completed; the source keeps its star
            log.exception("the actions agent call failed")
            error = f"the actions agent call failed ({type(exc).__name__})"
        if error is not None:
            log.warning("the actions agent did not unstar an item",
                        extra={"action_item_id": args["action_item_id"], "reason": error})
            history.record(jctx.db, entity_type="action_item", entity_id=args["action_item_id"],
                           action="unstar_failed", actor_id=caller.get("id"),
                           changes={"error": error, "source_module": args["source_module"],
                                    "source_id": args["source_id"]})
    return error
