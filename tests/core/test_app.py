"""app.py: what belongs to the whole API (binary types, accepted content types)."""


def test_every_upload_type_is_a_binary_type(app):
    from chalicelib.areas.pages.service_uploads import EXTENSIONS

    missing = [content_type for content_type in EXTENSIONS if content_type not in app.api.binary_types]
    assert missing == []


def test_routes_accept_any_content_type_so_our_decorator_answers(app):
    narrow = [(path, method) for path, methods in app.routes.items() for method, entry in methods.items()
              if "*/*" not in entry.content_types and "multipart/form-data" not in entry.content_types]
    assert narrow == []


def test_an_undeclared_method_on_a_known_path_answers_like_the_deployed_api(api, exec_user):
    """API Gateway never passes a method a resource does not declare to the function: its Gateway Response
    answers 404 with the error body of decisions.md section 4 (infra/resources.yaml). `make run`, and a function
    reached through a wrong mapping, got Chalice's own 405 body ({"Code": "MethodNotAllowedError", ...}, no
    X-Request-Id) instead; they answer as the deployed API does."""
    for method, path in [("PATCH", "/api/tasks"), ("DELETE", "/api/me"), ("PUT", "/api/health")]:
        response = api.request(method, path, as_=exec_user)
        assert response.status == 404, (method, path, response)
        assert response.json == {"error": "Not found"}
        assert response.headers["content-type"] == "application/json"
        assert response.headers.get("x-request-id")
        assert response.headers["access-control-allow-origin"] == "*"
    # a declared method is untouched
    assert api.get("/api/tasks", as_=exec_user).status == 200


def test_installing_the_app_again_registers_its_middleware_once(app):
    """The tests' small apps install themselves and then the main app again for each call (tests.factories.served):
    the main app's middleware stays one, not one more a call."""
    from chalicelib.core import http

    before = len(app.middleware_handlers)
    http.install(app)
    http.install(app)
    assert len(app.middleware_handlers) == before
