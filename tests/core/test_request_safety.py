"""One bad request never breaks the service for others (issue 20 items 1, 2 and 6): what the
database cannot store is a 400 naming the field, deep JSON is a 400, odd token claims are 401, and the
next requests of other users succeed."""
import time

import jwt
import pytest

from chalicelib.core.settings import get_settings
from tests.areas.tasks.factories import make_task
from tests.factories import make_user

POISONS = [
    ({"approved_at": "9999-12-31T23:59:59-12:00"}, "approved_at"),
    ({"approved_at": "0001-01-01T00:00:00+14:00"}, "approved_at"),
    ({"title": "bad \udfff text"}, "title"),
    ({"description": "nul \x00 inside"}, "description"),
]


def _raw_put(client, path, user_token, raw: bytes):
    return client.http.put(path, headers={"Authorization": f"Bearer {user_token}",
                                          "Content-Type": "application/json"}, body=raw)


@pytest.mark.parametrize("body, field", POISONS)
def test_values_the_database_cannot_store_are_400_and_others_go_on(api, db, body, field):
    employee = make_user(db, access_level="employee")
    task = make_task(db, created_by=employee.id, assignee_id=employee.id, title="Before")
    response = api.put(f"/api/tasks/{task.id}", as_=employee, json=body)
    assert response.status == 400, response
    assert response.json["details"][0]["field"] == field
    others = [make_user(db, access_level="executive") for _ in range(2)]
    for n in range(10):
        reply = api.get(f"/api/tasks/{task.id}", as_=others[n % 2])
        assert reply.status == 200, reply
        assert reply.json["task"]["title"] == "Before"


def test_a_lone_surrogate_escape_in_raw_json_is_400(client, api, db):
    employee = make_user(db, access_level="employee")
    task = make_task(db, created_by=employee.id, assignee_id=employee.id)
    raw = b'{"title": "x \\udfff y"}'
    response = _raw_put(client, f"/api/tasks/{task.id}", api.token_for(employee), raw)
    assert response.status_code == 400, response.body


def test_a_surrogate_in_a_key_and_in_the_query_is_400(client, api, db):
    employee = make_user(db, access_level="employee")
    task = make_task(db, created_by=employee.id, assignee_id=employee.id)
    response = _raw_put(client, f"/api/tasks/{task.id}", api.token_for(employee), b'{"\\ud800": 1, "title": "ok"}')
    assert response.status_code == 400
    assert api.get("/api/tasks?search=a%00b", as_=employee).status == 400


@pytest.mark.parametrize("depth", [65, 5000, 100_000])
def test_json_nested_deeper_than_64_is_400(client, api, db, depth):
    employee = make_user(db, access_level="employee")
    task = make_task(db, created_by=employee.id, assignee_id=employee.id)
    raw = b'{"title": "t", "x": ' + b"[" * depth + b"]" * depth + b"}"
    response = _raw_put(client, f"/api/tasks/{task.id}", api.token_for(employee), raw)
    assert response.status_code == 400, response.body
    assert b"nested deeper than 64" in response.body


def test_json_nested_64_deep_is_accepted(client, api, db):
    employee = make_user(db, access_level="employee")
    task = make_task(db, created_by=employee.id, assignee_id=employee.id)
    raw = b'{"title": "t", "x": ' + b"[" * 63 + b"]" * 63 + b"}"
    response = _raw_put(client, f"/api/tasks/{task.id}", api.token_for(employee), raw)
    assert response.status_code == 200, response.body


def _token(**claims):
    payload = {"email": "claims@agency.test", "exp": int(time.time()) + 600, **claims}
    return jwt.encode(payload, get_settings().auth_jwt_secret, algorithm="HS256")


@pytest.mark.parametrize("claims", [
    {"email": "claims@agency.test\x00"},
    {"email": "claims@agency.test\n"},
    {"email": "claims\x07@agency.test"},
    {"exp": "9999999999"},
    {"exp": None},
    {"exp": True},
])
def test_odd_token_claims_are_401(api, db, claims):
    make_user(db, email="claims@agency.test")
    response = api.get("/api/me", headers={"Authorization": f"Bearer {_token(**claims)}"})
    assert response.status == 401, response
    assert response.json["error"]


def test_a_clean_token_still_works(api, db):
    make_user(db, email="claims@agency.test")
    assert api.get("/api/me", headers={"Authorization": f"Bearer {_token()}"}).status == 200


@pytest.mark.parametrize("raw", ["\x00", "a\x00b", "\udfff"])
def test_a_path_value_the_database_cannot_store_is_a_400_and_the_service_stays_up(api, exec_user, raw):
    """A gateway may hand path parameters over decoded: they go through the same check as bodies."""
    response = api.get(f"/api/tasks/{raw}", as_=exec_user)
    assert response.status == 400 and response.json["details"][0]["field"] == "task_id"
    for _ in range(3):
        assert api.get("/api/me", as_=exec_user).status == 200
