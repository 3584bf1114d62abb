"""Read models: every answer is checked against its route's declared model in tests
(WMS_CHECK_RESPONSES=1), and the OpenAPI document declares them as the success schemas."""
import json

import pytest
from chalice import Response

from chalicelib.core.http import EndpointSpec, ResponseMismatch, check_response
from chalicelib.core.openapi import iter_routes
from chalicelib.core.schemas import Flag01, IsoTimestamp, OkResponse, Read, many, one, paged



class ThingRead(Read):
    id: str
    is_done: Flag01
    created_at: IsoTimestamp


def spec_for(model):
    return EndpointSpec(None, None, None, None, 200, "user", None, "", response=model)


def answer(body, status=200):
    return Response(body=json.dumps(body), status_code=status, headers={"Content-Type": "application/json"})


def test_a_matching_answer_passes():
    check_response(spec_for(many("things", ThingRead)),
                   answer({"things": [{"id": "a", "is_done": 1, "created_at": "2026-11-23T08:00:00Z"}]}))
    check_response(spec_for(OkResponse), answer({"ok": True}))


@pytest.mark.parametrize("record, field", [
    ({"id": "a", "is_done": True, "created_at": "2026-11-23T08:00:00Z"}, "is_done"),      # a flag is 0/1
    ({"id": "a", "is_done": 2, "created_at": "2026-11-23T08:00:00Z"}, "is_done"),
    ({"id": "a", "is_done": 0, "created_at": "2026-11-23 08:00:00"}, "created_at"),       # ISO, UTC, Z
    ({"id": "a", "is_done": 0}, "created_at"),                                            # a missing field
    ({"id": "a", "is_done": 0, "created_at": "2026-11-23T08:00:00Z", "extra": 1}, "extra"),  # undeclared
    ({"id": 5, "is_done": 0, "created_at": "2026-11-23T08:00:00Z"}, "id"),                # strict types
])
def test_a_mismatch_names_the_field(record, field):
    with pytest.raises(ResponseMismatch, match=field):
        check_response(spec_for(one("thing", ThingRead)), answer({"thing": record}))


def test_errors_and_non_json_answers_are_not_checked():
    check_response(spec_for(OkResponse), answer({"error": "nope"}, status=404))
    check_response(spec_for(OkResponse), Response(body=b"\x89PNG", status_code=200,
                                                   headers={"Content-Type": "image/png"}))


def test_paged_envelope_has_paging_fields():
    assert set(paged("things", ThingRead).model_fields) == {"things", "total", "total_exact", "limit", "offset"}


def test_every_json_route_declares_its_read_model(app):
    missing = []
    for path, method, entry in iter_routes(app):
        spec = entry.view_function.__wms_endpoint__
        if spec.response_content == "application/json" and spec.response is None:
            missing.append((method, path))
    assert missing == []


def test_document_declares_the_read_models(api):
    document = api.get("/api/openapi.json").json
    operation = document["paths"]["/api/tasks/{task_id}"]["get"]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    detail = document["components"]["schemas"][ref.split("/")[-1]]
    assert set(detail["properties"]) == {"task", "todos", "subtasks", "watchers", "agent"}
    task = document["components"]["schemas"]["TaskRead"]
    assert task["properties"]["is_private"]["type"] == "integer"
    assert task["properties"]["is_private"]["enum"] == [0, 1]
    assert task["properties"]["created_at"]["format"] == "date-time"
    ids = [op["operationId"] for methods in document["paths"].values() for op in methods.values()]
    assert len(ids) == len(set(ids))
    assert "get_me" in ids and "delete_task" in ids and "get_get_task" not in ids


def test_a_wrong_answer_in_a_real_route_is_caught(api, exec_user, monkeypatch):
    from chalicelib.areas.tasks import schemas

    monkeypatch.delitem(schemas.TaskRead.model_fields, "todo_done_count")
    schemas.TaskRead.model_rebuild(force=True)
    for model in (one("task", schemas.TaskRead),):
        model.model_rebuild(force=True)
    try:
        response = api.post("/api/tasks", json={"title": "checked"}, as_=exec_user)
        assert response.status == 500 and "todo_done_count" in response.json["error"]
    finally:
        monkeypatch.undo()
        schemas.TaskRead.model_rebuild(force=True)
        one("task", schemas.TaskRead).model_rebuild(force=True)


def test_creates_link_to_the_operations_on_what_they_made(api):
    document = api.get("/api/openapi.json").json
    links = document["paths"]["/api/tasks"]["post"]["responses"]["201"]["links"]
    assert links["get_task"] == {"operationId": "get_task", "parameters": {"task_id": "$response.body#/task/id"}}
    assert {"update_task", "delete_task", "list_subtasks"} <= set(links)
    ids = {op["operationId"] for methods in document["paths"].values() for op in methods.values()}
    for methods in document["paths"].values():
        for operation in methods.values():
            for response in operation["responses"].values():
                for link in response.get("links", {}).values():
                    assert link["operationId"] in ids


def test_multipart_and_binary_operations_declare_their_content(api):
    document = api.get("/api/openapi.json").json
    upload = document["paths"]["/api/pages/upload"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert upload["properties"]["file"] == {"type": "string", "format": "binary",
                                            "description": "the file (at most 10 MB)"}
    assert "pageId" in upload["properties"] and upload["required"] == ["file"]
    download = document["paths"]["/api/pages/uploads/pages/{page_id}/{file_name}"]["get"]["responses"]["200"]
    assert download["content"]["application/octet-stream"]["schema"] == {"type": "string", "format": "binary"}
