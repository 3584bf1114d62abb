"""Document 1 ("A request body must be valid JSON") and decisions.md section 4 (400 for "a body that is not JSON"): a
write route that takes no body model (an action such as duplicate, complete or approve) answers 400 to a body that is
not JSON, as routes with a body model do; it acted on it (a task duplicate answered 201 to `{not json`; conformance
audit). An empty body is still no body. Checked on every such route of the route table, with unknown ids: the body is
checked before the record is looked up."""
import pytest

from tests.access.test_matrix import ROUTES, _id, _random_path

NO_BODY_WRITES = [route for route in ROUTES if route[2] is not None and route[2].auth in ("user", "public")
                  and route[2].body is None and route[1] in ("POST", "PUT", "PATCH")
                  and route[2].request_content is None]


def test_there_are_such_routes():
    assert len(NO_BODY_WRITES) > 20


@pytest.mark.parametrize("route", NO_BODY_WRITES, ids=_id)
def test_a_body_that_is_not_json_is_400(api, exec_user, route):
    path, method, spec = route
    answer = api.request(method, _random_path(path), as_=exec_user if spec.auth == "user" else None,
                         body=b"{not json", headers={"Content-Type": "application/json"})
    assert answer.status == 400, (method, path, answer)
    assert answer.json == {"error": "Request body must be valid JSON"}


def test_an_empty_body_is_no_body(api, db, exec_user):
    task = api.post("/api/tasks", as_=exec_user, json={"title": "Copy me"}).json["task"]
    for body in (b"", b"  "):
        copy = api.request("POST", f"/api/tasks/{task['id']}/duplicate", as_=exec_user, body=body)
        assert copy.status == 201, copy
