"""Cookie authentication cannot be driven by another site (issue 20 item 5): a write carried by the
cookie alone needs Content-Type application/json and an allowed Origin (or Referer); else 403."""
import json

import pytest
from sqlalchemy import select

from chalicelib.areas.tasks.models import Task
from chalicelib.core.auth import issue_dev_token
from chalicelib.core.settings import get_settings
from tests.factories import make_user

OWN = "http://127.0.0.1:8000"  # the origin of PUBLIC_BASE_URL in tests


def _post(client, headers: dict, body: bytes = b'{"title": "Cross-site"}'):
    return client.http.post("/api/tasks", headers=headers, body=body)


@pytest.fixture
def cookie(db):
    user = make_user(db, access_level="executive", email="cookie@agency.test")
    return f"{get_settings().auth_cookie_name}={issue_dev_token(user.email)}"


@pytest.mark.parametrize("headers", [
    {"Content-Type": "text/plain", "Origin": OWN},                          # a form can send text/plain
    {"Content-Type": "application/x-www-form-urlencoded", "Origin": OWN},
    {"Content-Type": "application/json"},                                   # no Origin nor Referer
    {"Content-Type": "application/json", "Origin": "https://evil.example"},
    {"Content-Type": "application/json", "Origin": "null"},
    {"Content-Type": "application/json", "Referer": "https://evil.example/page"},
])
def test_cross_site_cookie_writes_are_403(client, db, cookie, headers):
    response = _post(client, {"Cookie": cookie, **headers})
    assert response.status_code == 403, response.body
    assert json.loads(response.body)["error"]
    assert db.scalar(select(Task).where(Task.title == "Cross-site")) is None


@pytest.mark.parametrize("headers", [
    {"Content-Type": "application/json", "Origin": OWN},
    {"Content-Type": "application/json; charset=utf-8", "Referer": OWN + "/tasks/board"},
])
def test_same_site_cookie_writes_pass(client, cookie, headers):
    assert _post(client, {"Cookie": cookie, **headers}).status_code == 201


def test_allowed_origins_come_from_settings(client, cookie, set_env):
    set_env(ALLOWED_ORIGINS="https://app.agency.test, https://admin.agency.test")
    headers = {"Cookie": cookie, "Content-Type": "application/json"}
    assert _post(client, {**headers, "Origin": "https://admin.agency.test"}).status_code == 201
    assert _post(client, {**headers, "Origin": OWN}).status_code == 403


def test_reads_with_the_cookie_and_writes_with_the_header_are_unchanged(client, db, cookie):
    assert client.http.get("/api/me", headers={"Cookie": cookie}).status_code == 200
    token = cookie.split("=", 1)[1]
    response = _post(client, {"Authorization": f"Bearer {token}", "Content-Type": "text/plain"})
    assert response.status_code == 201, response.body
