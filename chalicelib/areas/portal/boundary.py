"""The portal's trust boundary: the decorator of every portal route (document 3, authentication rule 5;
decisions.md sections 1, 2 and 6).

    @bp.route("/api/portal/projects", methods=["GET"])
    @portal_endpoint(response=ProjectsBody)
    def projects(ctx):
        ...                       # ctx.portal: the PortalCaller

It wraps the core `endpoint` (one transaction, validation, error bodies, logs) with `auth="portal"` and,
before the handler runs: `Authorization: Bearer <PORTAL_SERVICE_TOKEN>` compared in constant time (503
when the token is not configured, 401 when missing or wrong); `X-Portal-Company-Id` required (400) and a
client company (404 otherwise); `X-Portal-User-Role` one of viewer, collaborator, admin (viewer when
absent, 400 when unknown), and `collaborator` or `admin` for writes (403); `X-Portal-User-Id` required
where a route names it (400); `X-Portal-User-Email`, when sent, an e-mail address (400 otherwise), recorded
with the portal user id for e-mail delivery of portal notifications; on group-aware routes the ids of `X-Portal-Group-Company-Ids` kept only when
they are clients of the same client group as the company (queries.resolve_caller), so that a forged header
reads nothing more.
"""
from __future__ import annotations

import dataclasses
import functools
import re

from chalicelib.core.auth import bearer_secret_matches
from chalicelib.core.errors import BadRequest, Forbidden, ServiceUnavailable, Unauthorized
from chalicelib.core.http import WRITE_METHODS, _query_dict, endpoint, parse_json_body, validate
from chalicelib.core.settings import get_settings

from .queries import PortalCaller, resolve_caller
from .service_notifications import record_portal_user

ROLES = ("viewer", "collaborator", "admin")
WRITE_ROLES = ("collaborator", "admin")
PORTAL_HEADERS = ("X-Portal-Company-Id", "X-Portal-User-Role", "X-Portal-User-Id", "X-Portal-User-Email",
                  "X-Portal-Group-Company-Ids")
MAX_USER_ID = 100
MAX_EMAIL = 320
EMAIL = re.compile(r"^[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>]+$")


def _header(request, name: str) -> str | None:
    headers = request.headers or {}
    value = headers.get(name)
    if value is None:
        value = headers.get(name.lower())
    return value.strip() if isinstance(value, str) else value


def check_token(request) -> None:
    expected = get_settings().portal_service_token
    if not expected:
        raise ServiceUnavailable("The portal is not configured (PORTAL_SERVICE_TOKEN is unset)")
    if not bearer_secret_matches(request.headers, expected):
        raise Unauthorized("A valid portal service token is required")


def caller(ctx, *, write: bool, group_aware: bool, needs_user: bool) -> PortalCaller:
    request = ctx.request
    check_token(request)
    company_id = _header(request, "X-Portal-Company-Id")
    if not company_id:
        raise BadRequest("X-Portal-Company-Id is required",
                         details=[{"field": "X-Portal-Company-Id", "message": "required"}])
    role = _header(request, "X-Portal-User-Role") or "viewer"
    if role not in ROLES:
        raise BadRequest("X-Portal-User-Role must be viewer, collaborator or admin",
                         details=[{"field": "X-Portal-User-Role", "message": "unknown role"}])
    user_id = _header(request, "X-Portal-User-Id") or None
    if user_id is not None and len(user_id) > MAX_USER_ID:
        raise BadRequest("X-Portal-User-Id is too long",
                         details=[{"field": "X-Portal-User-Id", "message": f"at most {MAX_USER_ID} characters"}])
    if needs_user and not user_id:
        raise BadRequest("X-Portal-User-Id is required",
                         details=[{"field": "X-Portal-User-Id", "message": "required"}])
    email = _header(request, "X-Portal-User-Email") or None
    if email is not None and (len(email) > MAX_EMAIL or not EMAIL.fullmatch(email)):
        raise BadRequest("X-Portal-User-Email must be an e-mail address",
                         details=[{"field": "X-Portal-User-Email", "message": "must be an e-mail address"}])
    group_header = _header(request, "X-Portal-Group-Company-Ids") if group_aware else None
    found = resolve_caller(ctx.db, company_id=company_id, role=role, user_id=user_id, group_header=group_header)
    if write and role not in WRITE_ROLES:
        raise Forbidden("Requires portal role collaborator or admin")
    if user_id:
        record_portal_user(ctx.db, company_id=company_id, portal_user_id=user_id, email=email, role=role,
                           client_group=found.profile.get("client_group"))
    return found


def portal_endpoint(*, body=None, query=None, response=None, status: int = 200, write: bool = False,
                    group_aware: bool = False, needs_user: bool = False, errors: tuple[int, ...] = ()):
    """The core endpoint for a portal route, with the trust boundary checked first (`ctx.portal`), then the
    body and query validated (so that a caller without the token learns nothing from a validation error)."""

    def decorate(fn):
        @functools.wraps(fn)
        def handler(ctx, **kwargs):
            ctx.portal = caller(ctx, write=write, group_aware=group_aware, needs_user=needs_user)
            if body is not None:
                kwargs["body"] = validate(body, parse_json_body(ctx.request), "request body")
            elif ctx.request.method in WRITE_METHODS:
                parse_json_body(ctx.request)  # a write that takes no body: one sent must still be JSON (400)
            if query is not None:
                kwargs["query"] = validate(query, _query_dict(ctx.request), "query")
            return fn(ctx, **kwargs)

        wrapped = endpoint(auth="portal", response=response, status=status,
                           errors=tuple(sorted({401, 404, 503, *((403,) if write else ()), *errors})))(handler)
        wrapped.__wms_endpoint__ = dataclasses.replace(wrapped.__wms_endpoint__, body=body, query=query)
        return wrapped

    return decorate
