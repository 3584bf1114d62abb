"""OpenAPI 3.1 document built from the route table and the endpoint decorator's records."""
from __future__ import annotations

import re

from pydantic.json_schema import models_json_schema

from .schemas import model_of
from .settings import get_settings

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {"type": "string"},
        "details": {
            "type": "array",
            "items": {"type": "object", "properties": {"field": {"type": "string"}, "message": {"type": "string"}}},
        },
    },
}
_PARAM = re.compile(r"{([^}+]+)\+?}")


PORTAL_HEADERS = [
    {"name": "X-Portal-Company-Id", "in": "header", "required": True, "schema": {"type": "string"}},
    {"name": "X-Portal-User-Role", "in": "header", "required": False,
     "schema": {"type": "string", "enum": ["viewer", "collaborator", "admin"]}},
    {"name": "X-Portal-User-Id", "in": "header", "required": False, "schema": {"type": "string"}},
    {"name": "X-Portal-User-Email", "in": "header", "required": False,
     "schema": {"type": "string", "format": "email",
                "description": "the portal user's address, recorded for e-mail delivery of portal notifications"}},
    {"name": "X-Portal-Group-Company-Ids", "in": "header", "required": False,
     "schema": {"type": "string", "description": "comma-separated company ids (group-aware routes)"}},
]

def iter_routes(app):
    for path, methods in sorted(app.routes.items()):
        for method, entry in sorted(methods.items()):
            yield path, method, entry


_VERBS = ("get", "list", "create", "update", "delete", "add", "remove", "set", "replace", "reorder", "watch",
          "unwatch", "duplicate", "approve", "reject", "submit", "close", "archive", "restore", "mark", "upload",
          "download", "search", "move", "publish", "generate", "refresh", "send", "test", "run", "issue", "revoke",
          "toggle", "edit", "resolve", "serve", "complete", "reopen", "subscribe", "unsubscribe", "accept", "decline", "import", "export")


def operation_id(method: str, view_name: str) -> str:
    """The view's name when it starts with a verb (`get_me`, `delete_task`), else method + name."""
    if view_name.split("_", 1)[0] in _VERBS:
        return view_name
    return f"{method.lower()}_{view_name}"


def _created_key(spec) -> str | None:
    """The envelope key of a create's answer (`{"task": {...id...}}` -> "task"), when it has one."""
    model = model_of(spec.response) if spec is not None else None
    if model is None or len(model.model_fields) != 1:
        return None
    key, field = next(iter(model.model_fields.items()))
    inner = field.annotation
    return key if isinstance(inner, type) and "id" in getattr(inner, "model_fields", {}) else None


def add_links(paths: dict, app) -> None:
    """OpenAPI links from each create to the operations on the record it made: the `id` in the create's
    answer fills the record's path parameter (`POST /api/tasks` -> `GET /api/tasks/{task_id}`)."""
    specs = {(path, method.lower()): getattr(entry.view_function, "__wms_endpoint__", None)
             for path, method, entry in iter_routes(app)}
    for (path, method), spec in specs.items():
        key = _created_key(spec) if method == "post" else None
        if key is None:
            continue
        links = {}
        for child, operations in paths.items():
            rest = child[len(path):] if child.startswith(path + "/") else ""
            names = _PARAM.findall(rest)
            if len(names) != 1 or not rest.startswith("/{"):
                continue
            for child_method, operation in operations.items():
                parameters = {name: f"$request.path.{name}" for name in _PARAM.findall(path)}
                parameters[names[0]] = f"$response.body#/{key}/id"
                links[operation["operationId"]] = {"operationId": operation["operationId"], "parameters": parameters}
        if links:
            response = paths[path][method]["responses"][str(spec.status)]
            response["links"] = dict(sorted(links.items()))


WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def declared_statuses(method: str, path: str, spec) -> set[int]:
    """Every status the document lists for a route (its success statuses among them), the one rule the builder
    and the tests' check of answered statuses share (tests/conftest.py, session 26: about 30 routes answered a
    status their document left out). Besides the route's own (`status`, `success_also`, `errors`): 400 (a
    malformed request) on every route; 401 and 403 where a user's token is checked; 404 where the path names a
    record; and what the core may answer on any route whatever the area: 413 (an answer larger than a Lambda
    response), 503 (the service misconfigured), and on a write 409 (a unique value taken, a referenced record, two
    requests changing the same rows at once: core.http's database error mapping)."""
    statuses = {spec.status, *spec.success_also, 400, 413, 503, *spec.error_statuses}
    if spec.auth == "user":
        statuses |= {401, 403}
    if _PARAM.search(path):
        statuses.add(404)
    if method.upper() in WRITES:
        statuses.add(409)
    return statuses


def build_document(app, *, title: str = "Work Management Service", version: str | None = None) -> dict:
    if version is None:
        from .version import VERSION as version
    keyed = []
    for _path, _method, entry in iter_routes(app):
        spec = getattr(entry.view_function, "__wms_endpoint__", None)
        if spec is None:
            continue
        for key in ((model_of(spec.body), "validation"), (model_of(spec.query), "validation"),
                    (model_of(spec.response), "serialization")):
            if key[0] is not None and key not in keyed:
                keyed.append(key)
    refs, top = models_json_schema(keyed, ref_template="#/components/schemas/{model}") if keyed else ({}, {})
    schemas = dict(top.get("$defs", {}))
    schemas["Error"] = ERROR_SCHEMA

    paths: dict = {}
    for path, method, entry in iter_routes(app):
        spec = getattr(entry.view_function, "__wms_endpoint__", None)
        operation: dict = {
            "operationId": operation_id(method, entry.view_name),
            "tags": [path.split("/")[2] if path.count("/") >= 2 else "root"],
            "parameters": [
                {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
                for name in _PARAM.findall(path)
            ],
            "responses": {},
        }
        if spec is None:
            operation["responses"]["200"] = {"description": "OK"}
            paths.setdefault(path, {})[method.lower()] = operation
            continue
        operation["summary"] = spec.summary
        if spec.tool:
            operation["x-permission"] = f"{spec.tool}:{spec.level}"
        if spec.access:
            operation["x-access-levels"] = list(spec.access)
        operation["x-auth"] = spec.auth
        if spec.auth == "user":
            operation["security"] = [{"bearerAuth": []}, {"cookieAuth": []}]
        elif spec.auth == "portal":  # the portal worker: its service token and context headers (document 3, rule 5)
            operation["security"] = [{"portalServiceToken": []}]
            operation["parameters"].extend(PORTAL_HEADERS)
        if spec.query is not None:
            query_schema = model_of(spec.query).model_json_schema(ref_template="#/components/schemas/{model}")
            required = set(query_schema.get("required", []))
            for name, prop in query_schema.get("properties", {}).items():
                operation["parameters"].append({"name": name, "in": "query", "required": name in required, "schema": prop})
        if spec.body is not None:
            ref = refs[(model_of(spec.body), "validation")]
            operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": ref}}}
        elif spec.request_content:
            operation["requestBody"] = {"required": True,
                                        "content": {spec.request_content: {"schema": spec.request_schema or {}}}}
        if spec.response is not None:
            success_schema = refs[(model_of(spec.response), "serialization")]
        elif spec.response_content == "application/json":
            success_schema = {}
        else:
            success_schema = {"type": "string", "format": "binary"}
        content = {spec.response_content: {"schema": success_schema}}
        if success_schema.get("format") == "binary" and not spec.response_content.startswith("text/"):
            # a binary answer (a PDF) read as plain bytes by a generic client (one that Accepts octet-stream)
            content.setdefault("application/octet-stream", {"schema": success_schema})
        for status in (spec.status, *spec.success_also):
            operation["responses"][str(status)] = {"description": "Success", "content": content}
        error_ref = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        for status in sorted(declared_statuses(method, path, spec) - {spec.status, *spec.success_also}):
            operation["responses"][str(status)] = {"description": "Error", **error_ref}
        paths.setdefault(path, {})[method.lower()] = operation

    add_links(paths, app)
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version},
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
                "cookieAuth": {"type": "apiKey", "in": "cookie", "name": get_settings().auth_cookie_name},
                "portalServiceToken": {"type": "http", "scheme": "bearer",
                                       "description": "PORTAL_SERVICE_TOKEN of the portal worker"},
            },
        },
    }
