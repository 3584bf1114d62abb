"""The endpoint decorator: the one place where cross-cutting request work happens.

    @bp.route("/api/tasks/{task_id}", methods=["PUT"])
    @endpoint(tool="tasks", level="update", body=TaskUpdate)
    def update_task(ctx, task_id: str, body: TaskUpdate):
        return {"task": tasks_service.update_task(ctx, task_id=task_id, data=body)}

It authenticates, checks `<tool>:<level>`, validates body and query with pydantic, runs the
handler in one unit of work (commit on success, rollback on any exception), maps errors to the
status and body of decisions.md section 4, serialises, and records the route's models for the
OpenAPI document. Callbacks queued with `ctx.after_commit` (queue messages) run only after commit. The request
runs within its deadline (core.timeutil.request_deadline), which bounds its provider calls (providers.http).
"""
from __future__ import annotations

import functools
import json
import logging
import re
import struct
import time
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import orjson
from chalice import Response
from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm.exc import StaleDataError

from . import logs
from .auth import authenticate
from .context import Context
from .db import UnitOfWork
from .errors import BadRequest, Conflict, DomainError, Forbidden, NotFound, PayloadTooLarge
from .schemas import model_of
from .settings import get_settings
from .timeutil import iso, request_deadline

log = logging.getLogger("wms.http")
_app = None


def install(app) -> None:
    """Called once by app.py: the decorator reads the current request from this app."""
    global _app
    _app = app
    if not getattr(app, "_wms_middleware", False):  # installed again by the tests' small apps: register once
        app.register_middleware(_undeclared_method_not_found, "http")
        app._wms_middleware = True


def _undeclared_method_not_found(event, get_response):
    """A method the path does not declare: 404 with the error body, as API Gateway's Gateway Response
    answers it deployed (infra/resources.yaml). Only `chalice local` (make run) and a function reached
    through a wrong route mapping get this far, where Chalice would answer its own 405 body."""
    response = get_response(event)
    if response.status_code != 405:
        return response
    context = event.context or {}
    log.warning("method %s not served at %s (answered 404)", event.method, context.get("resourcePath"))
    rid = logs.request_id((event.headers or {}).get("x-request-id"), context.get("requestId"))
    headers = {"X-Request-Id": rid}
    cors = getattr(_app.api, "cors", None)
    if cors:  # the Gateway Response sends the API's origin header too
        headers["Access-Control-Allow-Origin"] = cors.allow_origin
    return json_response({"error": "Not found"}, 404, headers)


def accept_any_content_type(app) -> None:
    """Let our decorator answer every body (a wrong Content-Type gets our 400, not Chalice's 415)."""
    for methods in app.routes.values():
        for entry in methods.values():
            if entry.content_types == ["application/json"]:
                entry.content_types = ["*/*"]


def current_app():
    return _app


@dataclass(frozen=True)
class EndpointSpec:
    tool: str | None
    level: str | None
    body: type[BaseModel] | None
    query: type[BaseModel] | None
    status: int
    auth: str
    access: tuple[str, ...] | None
    summary: str
    request_content: str | None = None
    response_content: str = "application/json"
    error_statuses: tuple[int, ...] = ()
    response: type[BaseModel] | None = None
    request_schema: dict | None = None
    success_also: tuple[int, ...] = ()  # other success statuses the route answers (a proxy passing its upstream's)


def json_default(value):
    if isinstance(value, (datetime, date)):
        return iso(value)
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME


def dump_json(body: Any) -> str:
    """The compact JSON text of a response body. orjson (about ten times the standard library's speed: a
    100-row list is a millisecond of json.dumps); datetimes still go through `json_default` (the API's ISO
    form). What orjson refuses (a string with a lone surrogate, an integer beyond 64 bits) is written by the
    standard library as before."""
    try:
        return orjson.dumps(body, default=json_default, option=_ORJSON_OPTIONS).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(body, default=json_default, separators=(",", ":"))


# An AWS Lambda function's synchronous answer carries at most 6 MB (6,291,456 bytes) of the runtime's JSON of
# {statusCode, headers, body}; a larger one reaches the client as API Gateway's bare 502, without this service's
# error body, its X-Request-Id or its CORS headers (a browser reports a CORS failure), and a write answered so had
# committed. The margin leaves room for the headers.
LAMBDA_PAYLOAD_LIMIT = 6_000_000


def lambda_payload_size(body: str) -> int:
    """The bytes `body` (a JSON text) takes in the Lambda runtime's JSON of the answer, at most: the python3.11
    runtime writes it with ensure_ascii, so `"` and `\\` take 2 bytes, a non-ASCII character 6 (\\uXXXX) and one
    past the basic plane 12 (a surrogate pair). A body too short to reach the limit is not scanned."""
    size = len(body)
    if size * 12 < LAMBDA_PAYLOAD_LIMIT:
        return size
    return _runtime_size(body)


def _runtime_size(body: str) -> int:
    """lambda_payload_size, scanned whatever the body's length."""
    size = len(body)
    non_ascii = size - len(body.encode("ascii", "ignore"))
    astral = len(body.encode("utf-16-le", "surrogatepass")) // 2 - size
    return size + body.count('"') + body.count("\\") + 5 * non_ascii + 6 * astral


def check_answer_size(response: Response) -> None:
    """413 (the service's error body, nothing written) when a JSON answer is larger than a Lambda function can
    carry (LAMBDA_PAYLOAD_LIMIT): the client is told to ask for fewer rows or one record, instead of a bare 502."""
    if isinstance(response.body, str):
        size = lambda_payload_size(response.body)
        if size > LAMBDA_PAYLOAD_LIMIT:
            log.warning("answer too large: %d bytes", size)
            raise PayloadTooLarge(f"The answer would take {size / 1_000_000:.1f} MB, more than the 6 MB a response "
                                  "can carry: ask for fewer rows (limit) or read the records one by one")


def fit_page(result: Any, response: Response) -> Response:
    """A paged list's answer (core.query.PageBody) whose rows would take more than a Lambda answer carries, cut
    to the rows that fit, in order: its `limit` then says how many rows it carries (fewer than asked), so that the
    next page is at `offset + limit`, and `total` is unchanged. A detail's embedded lists (core.query.FitBody: a
    task's subtasks; a portal project's goals, then its decisions) are cut the same way, in their order, each
    with the room the earlier ones left and none once one is cut; a cut list's limit key (if it has one) says how
    many rows it carries, else its body tells the whole count otherwise. Any other answer, or a page whose first
    row alone does not fit, is returned as it is (check_answer_size answers 413)."""
    cuts = getattr(result, "cuts", None)
    if not cuts or not isinstance(response.body, str) or lambda_payload_size(response.body) <= LAMBDA_PAYLOAD_LIMIT:
        return response
    limits = {limit_key: len(result[key]) for key, limit_key in cuts if limit_key}  # the most room they take
    room = LAMBDA_PAYLOAD_LIMIT - _runtime_size(dump_json({**result, **{key: [] for key, _ in cuts}, **limits}))
    if room < 0:  # the rest of the body alone does not fit
        return response
    body, cut = dict(result), False
    for key, limit_key in cuts:
        rows, kept = result[key], 0
        for row in ([] if cut else rows):
            room -= _runtime_size(dump_json(row)) + 1  # the row and its comma
            if room < 0:
                break
            kept += 1
        if kept == len(rows):
            continue
        if kept == 0 and limit_key == "limit":  # a page of no row would never move on: its first row alone is a 413
            return response
        log.warning("%s cut to %d of %d rows to fit a Lambda answer", key, kept, len(rows))
        body[key], cut = rows[:kept], True
        if limit_key:
            body[limit_key] = kept
    return json_response(body, response.status_code,
                         {k: v for k, v in response.headers.items() if k != "Content-Type"})


def json_response(body: Any, status: int = 200, headers: dict | None = None) -> Response:
    return Response(
        body=dump_json(body),
        status_code=status,
        headers={"Content-Type": "application/json", **(headers or {})},
    )


def file_response(request, body: bytes, status: int, headers: dict) -> Response:
    """A file's bytes. Chalice (like API Gateway) sends a binary body only to a request whose Accept names
    a binary type; a browser's `*/*`, no Accept at all, or `application/json` get the file all the same:
    the request is taken to accept the type of what it asked for."""
    accept = (request.headers or {}).get("accept") if request is not None else None
    content_type = headers.get("Content-Type")
    if content_type and request is not None and (not accept or "*/*" in accept or "application/json" in accept):
        request.headers._dict["accept"] = content_type  # chalice's read-only mapping of the request headers
    return Response(body=body or "", status_code=status, headers=headers)


def redirect_response(location: str, status: int = 302, headers: dict | None = None) -> Response:
    return Response(body="", status_code=status, headers={"Location": location, **(headers or {})})


def error_response(error: DomainError) -> Response:
    return json_response(error.body(), error.status)


# The most details a 400 lists; past them one last detail says how many more problems there were. A body of a
# million invalid list elements made a detail apiece: 68 MB of answer and 1.5 GB of memory (security audit S6).
MAX_DETAILS = 100


def validation_details(exc: ValidationError) -> list[dict]:
    details = []
    for item in exc.errors(include_url=False, include_input=False, include_context=False):
        if len(details) == MAX_DETAILS:
            details.append({"field": "body", "message": f"{exc.error_count() - MAX_DETAILS} more problems not listed"})
            break
        loc = [str(part) for part in item.get("loc", ()) if part not in ("body", "query")]
        details.append({"field": ".".join(loc) or "body", "message": item.get("msg", "invalid")})
    return details


MAX_JSON_DEPTH = 64
# The most values (objects, lists, strings, numbers, booleans and nulls; keys not counted) a request body or query
# may hold: the largest a route takes (a proposal's pricing, 50 sections of 200 items) holds about 100,000. A 6 MB
# body of `[1,1,...]` is 3,000,000 values, each walked, validated and (when invalid) made an error: tens of seconds
# of one of the account's few Lambda instances, past API Gateway's 29 s (security audit S6).
MAX_JSON_VALUES = 200_000


def _text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "must not contain the NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "must be valid Unicode text (a lone surrogate is not)"
    return None


def check_request_values(value: Any, what: str = "request body") -> None:
    """Refuse, with a 400 naming the field, what the database cannot store or what would exhaust the
    stack or the function later: text with NUL or lone surrogates (in keys and values), nesting deeper than
    MAX_JSON_DEPTH, and more than MAX_JSON_VALUES values in all (counted before a container's members are
    walked). Iterative, so a deep document cannot overflow the stack here either."""
    stack: list[tuple[Any, str, int]] = [(value, "", 1)]
    values = 1
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            problem = _text_problem(item)
            if problem:
                raise BadRequest(f"Invalid {what}", details=[{"field": path or "body", "message": problem}])
            continue
        if not isinstance(item, (dict, list)):
            continue
        if depth > MAX_JSON_DEPTH:
            raise BadRequest(f"The {what} is nested deeper than {MAX_JSON_DEPTH} levels",
                             details=[{"field": path or "body", "message": f"nested deeper than {MAX_JSON_DEPTH} levels"}])
        values += len(item)
        if values > MAX_JSON_VALUES:
            raise BadRequest(f"The {what} holds more than {MAX_JSON_VALUES:,} values",
                             details=[{"field": path or "body", "message": f"more than {MAX_JSON_VALUES:,} values in all"}])
        if isinstance(item, dict):
            for key, child in item.items():
                child_path = f"{path}.{key}" if path else str(key)
                problem = _text_problem(key)
                if problem:
                    raise BadRequest(f"Invalid {what}", details=[{"field": path or "body",
                                                                 "message": f"a key {problem}"}])
                stack.append((child, child_path, depth + 1))
        else:
            for index, child in enumerate(item):
                stack.append((child, f"{path}.{index}" if path else str(index), depth + 1))


def load_json_body(request) -> Any:
    """The body as JSON ({} when empty), its values not checked yet (`parse_json_body` checks them); 400 when it
    is not JSON or too deep to parse."""
    raw = request.raw_body
    if not raw or not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except RecursionError as exc:
        raise BadRequest(f"The request body is nested deeper than {MAX_JSON_DEPTH} levels") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest("Request body must be valid JSON") from exc


WRITE_METHODS = frozenset({"POST", "PUT", "PATCH"})


def parse_json_body(request) -> Any:
    data = load_json_body(request)
    check_request_values(data)
    return data


def _query_dict(request) -> dict:
    params = request.query_params or {}
    values = {key: params[key] for key in params}
    check_request_values(values, "query")
    return values


def validate(model: type[BaseModel], data: Any, what: str) -> BaseModel:
    if not isinstance(data, dict):
        raise BadRequest(f"The {what} must be a JSON object")
    try:
        return model_of(model).model_validate(data)
    except ValidationError as exc:
        raise BadRequest(f"Invalid {what}", details=validation_details(exc)) from exc


class ResponseMismatch(Exception):
    """A success body that does not match the route's declared read model (WMS_CHECK_RESPONSES=1)."""


def check_response(spec: EndpointSpec, response: Response) -> None:
    if not (200 <= response.status_code < 300) or not str(response.headers.get("Content-Type", "")).startswith(
            "application/json"):
        return
    try:
        model_of(spec.response).model_validate_json(response.body, strict=True)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:10])
        raise ResponseMismatch(f"answer does not match {spec.response.__name__}: {problems}") from exc


# Postgres' DETAIL of a foreign key violation: a row that others still name (a delete), or the one column of a
# write that names no row of its table
_STILL_REFERENCED = re.compile(r'^Key \(.*\)=\(.*\) is still referenced from table "(?P<table>\w+)"\.$', re.S)
_MISSING_KEY = re.compile(r'^Key \((?P<column>\w+)\)=\(.*\) is not present in table "(?P<table>\w+)"\.$', re.S)


def _error_detail(orig) -> str:
    """The server's DETAIL line of a database error: pg8000 keeps it in its first argument, psycopg in `diag`."""
    if orig is not None and orig.args and isinstance(orig.args[0], dict):
        return orig.args[0].get("D") or ""
    diag = getattr(orig, "diag", None)
    return getattr(diag, "message_detail", None) or ""


def _database_error(exc: DBAPIError) -> DomainError | None:
    """Constraint and data errors are the caller's mistake: 400 or 409, never 500."""
    orig = exc.orig
    code = getattr(orig, "sqlstate", None)
    if code is None and orig is not None and orig.args and isinstance(orig.args[0], dict):
        code = orig.args[0].get("C")  # pg8000
    text = str(orig or exc).lower()
    if code in ("40P01", "40001"):  # deadlock_detected, serialization_failure: nothing was kept, a retry may pass
        log.warning("%s: two requests locked the same rows in opposite orders; answered 409",
                    "deadlock" if code == "40P01" else "serialization failure")
        return Conflict("The request met another changing the same records at the same moment; nothing was saved, "
                        "try again")
    if code == "23505" or "unique constraint" in text:
        return Conflict("A record with these values already exists")
    if code == "23503" or "foreign key constraint" in text:
        detail = _error_detail(orig)
        referenced = _STILL_REFERENCED.search(detail)
        if referenced is not None:  # a delete (or key change) of a row that others still name
            return Conflict(f"The record is still referenced by {referenced['table']} records")
        missing = _MISSING_KEY.search(detail)
        if missing is None:
            return BadRequest("A referenced record does not exist")
        field = missing["column"]
        return BadRequest(f"{field} does not match a record",
                          details=[{"field": field, "message": f"no {missing['table']} record has this id"}])
    if (code or "").startswith("22") or (code or "").startswith("23"):
        return BadRequest("A value is out of range or malformed")
    if (code or "").startswith("54"):  # program_limit_exceeded: an index row too large, too many arguments
        return BadRequest("A value or the request is too large for the database")
    return None


def _too_many_parameters(exc: Exception) -> bool:
    """pg8000 packs a statement's parameter count in 16 bits: past 65,535 values (an IN list of a filter the
    input model did not bound) it raises struct.error before anything is sent."""
    return isinstance(exc, struct.error) and "65535" in str(exc)


def _settings_problem() -> str | None:
    """None when the settings load (cached after the first time), else why not, naming the variables and never
    their values: a refused value (RuntimeError, as settings.load_settings words it) or one of the wrong type."""
    try:
        get_settings()
    except ValidationError as exc:
        return "; ".join(f"{'.'.join(str(part) for part in error['loc']).upper()}: {error['msg']}"
                         for error in exc.errors())
    except RuntimeError as exc:
        return str(exc)
    except Exception as exc:  # noqa: BLE001 - e.g. the provider secrets cannot be read
        return f"the settings cannot be read ({type(exc).__name__})"
    return None


def endpoint(
    *,
    tool: str | None = None,
    level: str = "view",
    body: type[BaseModel] | None = None,
    query: type[BaseModel] | None = None,
    status: int = 200,
    auth: str = "user",
    access: tuple[str, ...] | None = None,
    request_content: str | None = None,
    response_content: str = "application/json",
    errors: tuple[int, ...] = (),
    response: type[BaseModel] | None = None,
    request_schema: dict | None = None,
    success_also: tuple[int, ...] = (),
):
    """auth: "user" (a token, then `tool:level`), "public" (no token) or "service" (the handler checks
    its own bearer secret). access: access levels allowed, for endpoints gated by level not tool.
    response: the read model of the whole success body (core.schemas: `one`, `many`, `paged`,
    `OkResponse` or an area's own), used for the OpenAPI document and checked in tests.
    request_schema: the JSON schema of a non-JSON body (a multipart form's parts), for the document.
    errors: the error statuses the route answers beyond those every route of its kind may (core.openapi.
    declared_statuses); success_also: success statuses besides `status` (a proxy answering its upstream's). A test
    fails when a route answers a status its document does not list (tests/conftest.py)."""

    def decorate(fn):
        spec = EndpointSpec(tool, level if tool else None, body, query, status, auth, access,
                            (fn.__doc__ or fn.__name__.replace("_", " ")).strip().splitlines()[0],
                            request_content, response_content, errors, response, request_schema, success_also)

        def run(ctx: Context, request, path_params: dict) -> Response:
            uow = ctx.uow
            try:
                if auth == "user":
                    ctx.principal = authenticate(uow.session, request.headers, method=request.method,
                                                 request_content=request_content)
                    logs.bind(user_id=ctx.principal.id)
                    if access and ctx.principal.access_level not in access:
                        raise Forbidden(f"Requires access level {' or '.join(access)}")
                    if tool:
                        ctx.principal.require(tool, level)
                check_request_values(path_params, "path")  # a gateway may hand them over decoded
                kwargs: dict[str, Any] = {}
                if body is not None:
                    kwargs["body"] = validate(body, parse_json_body(request), "request body")
                elif request.method in WRITE_METHODS and request_content is None and auth in ("user", "public"):
                    parse_json_body(request)  # a write that takes no body: one sent must still be JSON (400)
                if query is not None:
                    kwargs["query"] = validate(query, _query_dict(request), "query")
                result = fn(ctx, **path_params, **kwargs)
                response = result if isinstance(result, Response) else fit_page(result, json_response(result, status))
                check_answer_size(response)  # before the commit: a write whose answer cannot be carried is not made
                if spec.response is not None and get_settings().wms_check_responses:
                    check_response(spec, response)
                uow.commit()
                return response
            except DomainError as exc:
                uow.rollback()
                return error_response(exc)
            except DBAPIError as exc:
                mapped = _database_error(exc)
                uow.rollback(invalidate=mapped is None)
                if mapped is None:
                    log.exception("database error in %s", fn.__name__)
                    return json_response({"error": "Internal server error"}, 500)
                return error_response(mapped)
            except StaleDataError:  # an UPDATE or DELETE of a row another request deleted meanwhile
                uow.rollback()
                log.warning("a row changed by %s was deleted meanwhile", fn.__name__)
                return error_response(NotFound("The record was deleted while this request ran"))
            except ResponseMismatch as exc:  # only with WMS_CHECK_RESPONSES=1 (tests and fuzzing)
                uow.rollback()
                log.error("response mismatch in %s: %s", fn.__name__, exc)
                return json_response({"error": f"Internal server error: {exc}"}, 500)
            except Exception as exc:  # noqa: BLE001 - the one place that turns the unexpected into a 500
                uow.rollback(invalidate=True)
                if _too_many_parameters(exc):
                    log.warning("too many statement parameters in %s", fn.__name__)
                    return error_response(BadRequest("The request names too many values"))
                log.exception("unhandled error in %s", fn.__name__)
                return json_response({"error": "Internal server error"}, 500)
            finally:
                uow.close()

        @functools.wraps(fn)
        def wrapper(**path_params):
            started = time.perf_counter()
            request = _app.current_request
            context = request.context or {}
            rid = logs.request_id((request.headers or {}).get("x-request-id"), context.get("requestId"))
            route = f"{request.method} {context.get('resourcePath') or fn.__name__}"
            logs.bind(request_id=rid, route=route)
            response = json_response({"error": "Internal server error"}, 500)
            try:
                # the providers' calls stop in time for API Gateway's 29 s (timeutil), counted from here: the
                # settings' first load (a secret read) is the request's time too
                with request_deadline():
                    problem = _settings_problem()
                    if problem is not None:
                        log.error("settings cannot load: %s", problem)
                        response = json_response({"error": f"The service is misconfigured: {problem}"}, 503)
                        return response
                    response = run(Context(uow=UnitOfWork(), request=request), request, path_params)
            finally:
                response.headers["X-Request-Id"] = rid
                log.info("request", extra={"status": response.status_code,
                                           "duration_ms": round((time.perf_counter() - started) * 1000, 1)})
                logs.unbind("request_id", "route", "user_id")
            return response

        wrapper.__wms_endpoint__ = spec
        return wrapper

    return decorate


__all__ = ["endpoint", "Context", "json_response", "error_response", "install"]
