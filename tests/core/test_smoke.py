"""API smoke tests: also run on SQLite (`make test-sqlite`) so the embedded default never rots."""
import pytest

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
