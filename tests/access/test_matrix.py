"""The access-control matrix, generated from the route table of `app.app`.

Every route and method is a parameter, so a new route is covered as soon as it is registered:
  * no token: every non-public route answers 401 with `{error}` (decisions.md sections 2 and 4);
  * a token whose user is inactive: 403;
  * a user whose permission on the route's tool is `none`: 403; one level below the route's level:
    403; a user below the route's `access` levels: 403 (routes with `auth="user"` and neither tool
    nor access, such as /api/me and notifications, are open to every active user);
  * for routes with an id: a user who holds the route's tool level but may not see the record (an
    employee, and a manager outside the record's team) gets 404 (or what
    tests/access/scoped_records.py says), while the record's owner does see it;
  * every path parameter is classified as scoped or unscoped in scoped_records.py.
"""
from __future__ import annotations

import re
import uuid

import pytest

from app import app as chalice_app
from chalicelib.core.models import ACCESS_LEVELS
from chalicelib.core.permissions import LEVELS
from tests.access.scoped_records import BODY_EXAMPLES, ROUTE_EXPECT, SCOPED, UNSCOPED, value_for
from tests.factories import grant, make_user

_PARAM = re.compile(r"{([^}+]+)\+?}")


def _routes():
    for path, methods in sorted(chalice_app.routes.items()):
        for method, entry in sorted(methods.items()):
            spec = getattr(entry.view_function, "__wms_endpoint__", None)
            yield path, method, spec


ROUTES = list(_routes())


def _id(route) -> str:
    return f"{route[1]} {route[0]}"


def _params(path: str) -> list[str]:
    return _PARAM.findall(path)


def _random_path(path: str) -> str:
    return _PARAM.sub(lambda _m: str(uuid.uuid4()), path)


def _fill(path: str, values: dict[str, str]) -> str:
    return _PARAM.sub(lambda m: values[m.group(1)], path)


def assert_error_body(response, status: int) -> None:
    assert response.status == status, response
    body = response.json
    assert isinstance(body, dict) and isinstance(body.get("error"), str) and body["error"], response


# ------------------------------------------------------------------ 401 without a token

USER_ROUTES = [r for r in ROUTES if r[2] is not None and r[2].auth == "user"]
SERVICE_ROUTES = [r for r in ROUTES if r[2] is not None and r[2].auth == "service"]


def test_every_route_goes_through_the_endpoint_decorator():
    bare = [_id(r) for r in ROUTES if r[2] is None]
    assert bare == [], f"routes without @endpoint (no auth, no error mapping): {bare}"


def test_the_matrix_covers_routes():
    assert len(USER_ROUTES) > 0


@pytest.mark.parametrize("route", USER_ROUTES, ids=_id)
def test_no_token_is_401(api, route):
    path, method, _spec = route
    response = api.request(method, _random_path(path), json={})
    assert_error_body(response, 401)


@pytest.mark.parametrize("route", USER_ROUTES, ids=_id)
def test_bad_token_is_401(api, route):
    path, method, _spec = route
    response = api.request(method, _random_path(path), json={}, token="not-a-jwt")
    assert_error_body(response, 401)


def test_service_routes_without_their_secret_are_refused(api):
    """Routes that check their own bearer secret (runner callback, portal) refuse a request without it.
    One test over all of them, so that the matrix runs (and skips nothing) before such routes exist."""
    for path, method, _spec in SERVICE_ROUTES:
        response = api.request(method, _random_path(path), json={})
        assert response.status in (401, 403, 503), (method, path, response)
        assert_error_body(response, response.status)


@pytest.mark.parametrize("route", USER_ROUTES, ids=_id)
def test_inactive_user_is_403(api, db, route):
    path, method, _spec = route
    user = make_user(db, access_level="executive", is_active=False)
    response = api.request(method, _random_path(path), json={}, as_=user)
    assert_error_body(response, 403)


# ------------------------------------------------------------------ 403 without the tool or level

TOOL_ROUTES = [r for r in USER_ROUTES if r[2].tool]
RANKED_ROUTES = [r for r in TOOL_ROUTES if LEVELS.index(r[2].level) > LEVELS.index("view")]
ACCESS_ROUTES = [r for r in USER_ROUTES if r[2].access and set(ACCESS_LEVELS) - set(r[2].access)]


def _allowed_access_level(spec) -> str:
    if not spec.access or "employee" in spec.access:
        return "employee"
    return next(level for level in ACCESS_LEVELS if level in spec.access)


@pytest.mark.parametrize("route", TOOL_ROUTES, ids=_id)
def test_tool_permission_none_is_403(api, db, route):
    path, method, spec = route
    user = make_user(db, access_level=_allowed_access_level(spec))
    grant(db, user, spec.tool, "none")
    response = api.request(method, _random_path(path), json={}, as_=user)
    assert_error_body(response, 403)


@pytest.mark.parametrize("route", RANKED_ROUTES, ids=_id)
def test_one_level_below_the_route_is_403(api, db, route):
    path, method, spec = route
    user = make_user(db, access_level=_allowed_access_level(spec))
    grant(db, user, spec.tool, LEVELS[LEVELS.index(spec.level) - 1])
    response = api.request(method, _random_path(path), json={}, as_=user)
    assert_error_body(response, 403)


@pytest.mark.parametrize("route", ACCESS_ROUTES, ids=_id)
def test_access_level_outside_the_route_is_403(api, db, route):
    path, method, spec = route
    for level in ACCESS_LEVELS:
        if level in spec.access:
            continue
        user = make_user(db, access_level=level)
        if spec.tool:
            grant(db, user, spec.tool, "manage")
        response = api.request(method, _random_path(path), json={}, as_=user)
        assert_error_body(response, 403)


# ------------------------------------------------------------------ record scoping

def test_every_path_parameter_is_classified():
    unknown = sorted({f"{name} ({_id(r)})" for r in USER_ROUTES for name in _params(r[0])
                      if name not in SCOPED and name not in UNSCOPED})
    assert unknown == [], (
        "path parameters in neither SCOPED nor UNSCOPED of tests/access/scoped_records.py: " + ", ".join(unknown))


def test_no_parameter_is_both_scoped_and_unscoped():
    assert set(SCOPED) & set(UNSCOPED) == set()


SCOPED_ROUTES = [r for r in USER_ROUTES if any(name in SCOPED for name in _params(r[0]))]


def _resolve(schema: dict, defs: dict) -> dict:
    while "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def minimal_instance(schema: dict, defs: dict):
    """The smallest value a JSON schema accepts, for the required fields only."""
    schema = _resolve(schema, defs)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [_resolve(option, defs) for option in schema[key]]
            options = [option for option in options if option.get("type") != "null"] or options
            return minimal_instance(options[0], defs)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {name: minimal_instance(props.get(name, {}), defs) for name in schema.get("required", [])}
    if kind == "array":
        count = schema.get("minItems", 0)
        return [minimal_instance(schema.get("items", {}), defs) for _ in range(count)]
    if kind == "string":
        fmt = schema.get("format")
        if fmt == "date":
            return "2026-01-05"
        if fmt == "date-time":
            return "2026-01-05T00:00:00Z"
        if fmt == "uuid":
            return str(uuid.uuid4())
        if fmt == "email":
            return "someone@agency.test"
        if fmt in ("uri", "url"):
            return "https://example.com/"
        return "x" * max(1, schema.get("minLength", 1))
    if kind in ("integer", "number"):
        return schema.get("minimum", schema.get("exclusiveMinimum", 0) + 1)
    if kind == "boolean":
        return False
    return None


def body_for(method: str, path: str, spec) -> dict:
    if (method, path) in BODY_EXAMPLES:
        return BODY_EXAMPLES[(method, path)]
    if spec.body is None:
        return {}
    schema = spec.body.model_json_schema()
    defs = schema.get("$defs", {})
    body = minimal_instance(schema, defs)
    if isinstance(body, dict) and not body:
        # an update with every field optional: send one harmless field, so "nothing to update" is no excuse
        props = schema.get("properties", {})
        for name in ("title", "name", "description", "content", *props):
            if name in props:
                body[name] = minimal_instance(props[name], defs)
                break
    return body


def _hidden_records(db, path):
    """Path values: a hidden record for each scoped parameter, a real value for the others."""
    made: dict = {}
    values: dict[str, str] = {}
    owner = None
    first_scoped = None
    for name in _params(path):
        if name in SCOPED:
            record = SCOPED[name].make(db, made)
            made[name] = record
            values[name] = record.id
            owner = owner or record.owner
            first_scoped = first_scoped or name
        else:
            values[name] = value_for(db, name, made)
            made[name] = type("Value", (), {"id": values[name], "owner": None})()
    return values, owner, SCOPED[first_scoped]


# Viewers below "sees all": an employee, and a manager with no squad and no reports (who may
# approve, assign and manage, so that record scoping, not a role rule, is what answers).
SCOPED_VIEWERS = ("employee", "manager")


def _viewer_level(spec, preferred: str) -> str:
    if not spec.access or preferred in spec.access:
        return preferred
    return _allowed_access_level(spec)


@pytest.mark.parametrize("viewer_level", SCOPED_VIEWERS)
@pytest.mark.parametrize("route", SCOPED_ROUTES, ids=_id)
def test_record_outside_the_callers_scope(api, db, route, viewer_level):
    path, method, spec = route
    level = _viewer_level(spec, viewer_level)
    values, owner, scoped = _hidden_records(db, path)
    viewer = make_user(db, access_level=level)
    if spec.tool:
        grant(db, viewer, spec.tool, spec.level)
    expect, rule = ROUTE_EXPECT.get((method, path, level), (scoped.expect, scoped.rule))
    response = api.request(method, _fill(path, values), json=body_for(method, path, spec), as_=viewer)
    assert response.status in expect, (
        f"{method} {path} as {level} on a record the caller may not see ({rule}): expected "
        f"{expect}, got {response!r}")
    assert_error_body(response, response.status)


DETAIL_READS = [r for r in SCOPED_ROUTES if r[1] == "GET" and _params(r[0])
                and r[0].endswith("{" + _params(r[0])[-1] + "}") and _params(r[0])[-1] in SCOPED]


@pytest.mark.parametrize("route", DETAIL_READS, ids=_id)
def test_the_records_owner_sees_it(api, db, route):
    """The records made for the scoping test are real: their owner reads them."""
    path, method, spec = route
    values, owner, _scoped = _hidden_records(db, path)
    if spec.tool:
        grant(db, owner, spec.tool, spec.level)
    response = api.request(method, _fill(path, values), as_=owner)
    assert response.status == 200, response
