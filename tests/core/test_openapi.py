"""GET /api/openapi.json documents every route of the app (all areas), with request schemas."""
import pytest
from chalice import Chalice

from chalicelib.core.http import endpoint
from chalicelib.core.openapi import build_document, iter_routes


def undocumented(app, document) -> list[tuple[str, str]]:
    return [(path, method) for path, method, _entry in iter_routes(app)
            if method.lower() not in document["paths"].get(path, {})]


@pytest.fixture
def document(api):
    response = api.get("/api/openapi.json")
    assert response.status == 200
    return response.json


def test_public_and_versioned(document):
    assert document["openapi"].startswith("3.1")
    assert document["info"]["title"]
    assert document["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"


def test_every_route_is_documented(app, document):
    assert undocumented(app, document) == []
    documented = {(path, method.upper()) for path, methods in document["paths"].items() for method in methods}
    assert documented == {(path, method) for path, method, _ in iter_routes(app)}
    # the areas this task built are in it
    for path in ("/api/me", "/api/admin/users/{user_id}/permissions", "/api/config-lists/{key}/reorder"):
        assert path in document["paths"]


def test_the_check_catches_a_missing_route(document):
    other = Chalice(app_name="extra")

    @other.route("/api/not-documented", methods=["GET", "POST"])
    @endpoint()
    def not_documented(ctx):
        return {}

    assert undocumented(other, document) == [("/api/not-documented", "GET"), ("/api/not-documented", "POST")]


def test_every_route_goes_through_the_endpoint_decorator(app):
    bare = [(path, method) for path, method, entry in iter_routes(app)
            if getattr(entry.view_function, "__wms_endpoint__", None) is None]
    assert bare == []


def resolve(document, schema):
    ref = schema.get("$ref")
    if ref is None:
        return schema
    name = ref.split("/")[-1]
    return document["components"]["schemas"][name]


def test_request_schemas_match_body_models(app, document):
    checked = 0
    for path, method, entry in iter_routes(app):
        spec = entry.view_function.__wms_endpoint__
        operation = document["paths"][path][method.lower()]
        if spec.body is None:
            continue
        schema = resolve(document, operation["requestBody"]["content"]["application/json"]["schema"])
        assert set(schema["properties"]) == set(spec.body.model_fields), (path, method)
        required = {name for name, field in spec.body.model_fields.items() if field.is_required()}
        assert set(schema.get("required", [])) == required, (path, method)
        checked += 1
    assert checked >= 10


def test_query_models_become_query_parameters(app, document):
    checked = 0
    for path, method, entry in iter_routes(app):
        spec = entry.view_function.__wms_endpoint__
        if spec.query is None:
            continue
        operation = document["paths"][path][method.lower()]
        names = {p["name"] for p in operation["parameters"] if p["in"] == "query"}
        assert names == set(spec.query.model_fields), (path, method)
        checked += 1
    assert checked >= 2


def test_operations_carry_permission_status_and_query(app, document):
    users = document["paths"]["/api/admin/users"]
    assert users["post"]["x-permission"] == "admin:manage"
    assert "201" in users["post"]["responses"] and "409" in users["post"]["responses"]
    assert users["get"]["x-permission"] == "admin:view"
    assert {p["name"] for p in users["get"]["parameters"]} == {"search", "squad_id", "access_level", "include_inactive",
                                                              "limit", "offset"}
    item = document["paths"]["/api/config-lists/{key}/items/{item_id}"]["put"]
    assert {p["name"] for p in item["parameters"] if p["in"] == "path"} == {"key", "item_id"}
    assert item["x-permission"] == "config-lists:manage"
    assert "404" in item["responses"] and "401" in item["responses"]
    assert document["paths"]["/api/health"]["get"]["x-auth"] == "public"
    assert "security" not in document["paths"]["/api/health"]["get"]


def test_build_document_is_deterministic(app):
    assert build_document(app) == build_document(app)


def test_committed_document_is_current(document):
    """docs/openapi.json is what `make openapi` writes today: run it when a route or model changes."""
    import json
    from pathlib import Path

    committed = json.loads((Path(__file__).resolve().parents[2] / "docs" / "openapi.json").read_text())
    assert committed == json.loads(json.dumps(document)), "docs/openapi.json is stale: run `make openapi`"
