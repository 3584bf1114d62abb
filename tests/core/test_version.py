"""GET /api/version (issue 10 item 8): the build's version and commit, and the same version in the
OpenAPI document."""
import json

from chalicelib.core import version


def test_version_from_the_checkout(api, monkeypatch, tmp_path):
    monkeypatch.setattr(version, "BUILD_INFO", tmp_path / "absent.json")
    version.build_info.cache_clear()
    try:
        response = api.get("/api/version")
        assert response.status == 200, response
        body = response.json
        assert body["version"] == version.VERSION
        assert body["commit"] == (version.git_commit() or "unknown")
        assert api.get("/api/openapi.json").json["info"]["version"] == body["version"]
    finally:
        version.build_info.cache_clear()


def test_version_from_the_packaged_build_info(api, monkeypatch, tmp_path):
    path = tmp_path / "build_info.json"
    version.write_build_info("abc123def", path)
    assert json.loads(path.read_text()) == {"version": version.VERSION, "commit": "abc123def"}
    monkeypatch.setattr(version, "BUILD_INFO", path)
    version.build_info.cache_clear()
    try:
        assert api.get("/api/version").json == {"version": version.VERSION, "commit": "abc123def"}
    finally:
        version.build_info.cache_clear()
