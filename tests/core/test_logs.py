"""Request ids and structured logs (issue 10 item 5): every answer carries X-Request-Id; every request
writes one JSON log line with its id, route, user id, status and duration; no token, secret or password
reaches a log line, whatever the error path."""
import io
import json
import logging
import re

import pytest
from sqlalchemy.exc import DBAPIError

from chalicelib.core import logs
from chalicelib.core.settings import get_settings

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.fixture
def log_lines():
    """The JSON lines the `wms` logger writes during the test, formatted as in production."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(logs.logger.registered_formatter)
    target = logging.getLogger("wms")
    target.addHandler(handler)

    def lines():
        return [json.loads(line) for line in buffer.getvalue().splitlines() if line.strip()]

    lines.text = buffer.getvalue
    yield lines
    target.removeHandler(handler)


def test_every_answer_carries_a_request_id(api, exec_user):
    for response in (api.get("/api/me", as_=exec_user), api.get("/api/tasks/nope", as_=exec_user),
                     api.get("/api/me"), api.post("/api/tasks", json={"title": ""}, as_=exec_user),
                     api.get("/api/health")):
        assert UUID.fullmatch(response.headers["x-request-id"]), response


def test_a_well_formed_incoming_id_is_honoured_and_a_bad_one_replaced(api, exec_user):
    ok = api.get("/api/me", as_=exec_user, headers={"X-Request-Id": "client-req-0001"})
    assert ok.headers["x-request-id"] == "client-req-0001"
    for bad in ("short", "has space in it", "x" * 200, "<script>alert(1)</script>"):
        response = api.get("/api/me", as_=exec_user, headers={"X-Request-Id": bad})
        assert UUID.fullmatch(response.headers["x-request-id"]), bad


def test_one_json_line_per_request_with_id_route_user_status_duration(api, exec_user, log_lines):
    response = api.get("/api/tasks/missing-task", as_=exec_user, headers={"X-Request-Id": "trace-abcdef12"})
    assert response.status == 404
    [line] = [line for line in log_lines() if line["message"] == "request"]
    assert line["request_id"] == "trace-abcdef12"
    assert line["route"] == "GET /api/tasks/{task_id}"
    assert line["user_id"] == exec_user.id
    assert line["status"] == 404
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert line["level"] == "INFO" and line["service"] == "wms"
    # the keys do not leak into the next request's lines
    api.get("/api/health")
    health = [line for line in log_lines() if line.get("route") == "GET /api/health"]
    assert health and "user_id" not in health[-1] and health[-1]["request_id"] != "trace-abcdef12"


def test_error_lines_carry_the_request_id_too(api, exec_user, log_lines, monkeypatch):
    from chalicelib.areas.tasks import service

    monkeypatch.setattr(service, "create_task", lambda ctx, **kw: 1 / 0)
    response = api.post("/api/tasks", json={"title": "x"}, as_=exec_user)
    assert response.status == 500
    error = [line for line in log_lines() if line["level"] == "ERROR"]
    assert error and error[0]["request_id"] == response.headers["x-request-id"]
    assert "ZeroDivisionError" in json.dumps(error[0])


def test_no_token_secret_or_password_reaches_a_log_line(api, db, exec_user, log_lines, monkeypatch):
    from chalicelib.areas.tasks import service

    token = api.token_for(exec_user)
    secret = get_settings().auth_jwt_secret
    monkeypatch.setenv("AI_API_KEY", "sk-live-abcdef0123456789")
    get_settings.cache_clear()
    try:
        ai_key = get_settings().ai_api_key
        # an unexpected failure whose message holds them all
        monkeypatch.setattr(service, "create_task", lambda ctx, **kw: (_ for _ in ()).throw(
            RuntimeError(f"boom Bearer {token} secret={secret} key {ai_key} password=hunter2hunter2")))
        assert api.post("/api/tasks", json={"title": "x"}, headers={"Authorization": f"Bearer {token}"}).status == 500
        # an unmapped database error carrying them in its parameters
        monkeypatch.setattr(service, "create_task", lambda ctx, **kw: (_ for _ in ()).throw(
            DBAPIError(f"INSERT ... {token}", {"password": "hunter2hunter2", "key": ai_key}, Exception(secret))))
        assert api.post("/api/tasks", json={"title": "x"}, as_=exec_user).status == 500
        # refused tokens: a tampered one, and one in a cookie
        assert api.get("/api/me", token=token[:-4] + "AAAA").status == 401
        assert api.get("/api/me", headers={"Cookie": f"wms_session={token[:-2]}zz"}).status == 401
        text = log_lines.text()
        assert text.count('"message":"request"') == 4
        for leaked in (token, token.split(".")[1], secret, ai_key, "hunter2hunter2"):
            assert leaked not in text
        assert "[redacted]" in text
    finally:
        get_settings.cache_clear()


def test_redact_keeps_ordinary_text():
    assert logs.redact("task created by Alice in 12 ms") == "task created by Alice in 12 ms"
    assert "abc.def" not in logs.redact('{"token": "abc.def"}')


@pytest.mark.parametrize("line, secret", [
    ("Authorization: BEARER abc123secretvalue", "abc123secretvalue"),
    ("sent eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl to the worker", "eyJzdWIiOi"),
    ('{"Api_Key": "k-12345678"}', "k-12345678"),
    ("PASSWORD=hunter22 user=ana", "hunter22"),
    ("Cookie: session=s3cr3tcookie", "s3cr3tcookie"),
    ('{"private_key_pem": "MIIEvQIBADANBg"}', "MIIEvQIBADANBg"),
])
def test_redact_finds_marks_in_any_case(line, secret):
    """redact tries its patterns only on lines holding one of their marks (lowercased): a mark in capitals
    still gets its value redacted."""
    assert secret not in logs.redact(line) and logs.REDACTED in logs.redact(line)
