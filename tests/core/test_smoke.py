"""API smoke tests: also run on SQLite (`make test-sqlite`) so the embedded default never rots."""
import pytest

from tests.factories import make_user

pytestmark = pytest.mark.smoke


def test_health_answers_ok(api):
    response = api.get("/api/health")
    assert response.status == 200
    assert response.json == {"ok": True}


def test_unknown_token_is_401_with_error_body(api):
    response = api.get("/api/openapi.json", headers={"Authorization": "Bearer nonsense"})
    assert response.status == 200  # public route ignores tokens
    response = api.get("/api/me", headers={"Authorization": "Bearer nonsense"})
    assert response.status == 401
    assert set(response.json) == {"error"}


def test_me_with_a_token(api, db):
    user = make_user(db, email="smoke@agency.test", name="Smoke", access_level="manager")
    response = api.get("/api/me", as_=user)
    assert response.status == 200
    assert response.json["user"]["email"] == "smoke@agency.test"
    assert response.json["user"]["created_at"].endswith("Z")
    assert response.json["permissions"]["admin"] == "none"
    assert response.json["permissions"]["tasks"] == "update"


def test_read_a_seeded_config_list(api, db):
    user = make_user(db)
    response = api.get("/api/config-lists/task_status/items", as_=user)
    assert response.status == 200
    items = response.json["items"]
    assert [item["value"] for item in items][0] == "todo"
    assert [item["position"] for item in items] == sorted(item["position"] for item in items)
    assert sum(item["is_default"] for item in items) == 1


def test_admin_create_then_read_user(api, db):
    executive = make_user(db, access_level="executive")
    created = api.post("/api/admin/users", as_=executive, json={"email": "Smoke.New@agency.test", "name": "New"})
    assert created.status == 201
    fetched = api.get(f"/api/admin/users/{created.json['user']['id']}", as_=executive)
    assert fetched.status == 200 and fetched.json["user"]["email"] == "smoke.new@agency.test"
