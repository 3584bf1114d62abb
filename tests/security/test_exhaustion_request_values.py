"""A request body of many small invalid values (security audit S6, resource exhaustion; core.http).

A list without a maximum (PUT /api/tasks/{id}/resources/reorder `order`, POST /api/pages/ai/command `messages`,
any future one) validated against a 2 MB body of `[1,1,1,...]` fails once per element, and every failure became
a detail of the 400: measured with 1,000,000 elements (2 MB), about 9 s of CPU and a 68 MB answer; a 6 MB body
(3,000,000) took 13.7 s to list pydantic's errors, 24 s to turn them into details, and gigabytes of memory: far past
API Gateway's 29 s, holding one of the account's few Lambda instances (docs/decisions/infra.md: a quota of 10) for
the whole run. Any signed-in employee can send it, in parallel, and take the API away from everyone.

Refused now: a body (or query) holding more than MAX_JSON_VALUES values is a 400 before validation, and a 400
lists at most MAX_DETAILS details.
"""
import json

from chalicelib.core.http import MAX_DETAILS
from tests.factories import make_user


def _task(api, user) -> str:
    created = api.post("/api/tasks", as_=user, json={"title": "Launch"})
    assert created.status == 201, created
    return created.json["task"]["id"]


def test_a_body_of_a_million_values_is_refused_before_validation(api, db):
    user = make_user(db, access_level="employee")
    task_id = _task(api, user)
    body = json.dumps({"order": [1] * 1_000_000}, separators=(",", ":"))  # 2 MB
    answer = api.put(f"/api/tasks/{task_id}/resources/reorder", as_=user, body=body,
                     headers={"Content-Type": "application/json"})
    size = len(answer.body)
    assert answer.status == 400 and size < 10_000, f"{answer.status}: {size:,} bytes"
    assert "values" in answer.json["error"]


def test_a_400_lists_a_bounded_number_of_details(api, db):
    user = make_user(db, access_level="employee")
    task_id = _task(api, user)
    # the most ids a reorder takes (500), each invalid: 500 problems, of which the 400 lists 100 and counts the rest
    body = json.dumps({"order": [1] * 500}, separators=(",", ":"))
    answer = api.put(f"/api/tasks/{task_id}/resources/reorder", as_=user, body=body,
                     headers={"Content-Type": "application/json"})
    size = len(answer.body)
    assert answer.status == 400 and size < 100_000, f"{answer.status}: {size:,} bytes"
    details = answer.json["details"]
    assert len(details) == MAX_DETAILS + 1 and details[0]["field"] == "order.0", f"{len(details):,} details"
    assert details[-1] == {"field": "body", "message": "400 more problems not listed"}
