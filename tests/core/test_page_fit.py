"""A paged list whose rows would take more than a Lambda answer carries is cut to the rows that fit (core.http.fit_page)
instead of answering 413: its `limit` says how many rows it carries, and the next page is at `offset + limit`."""
import json

import pytest

from chalicelib.core import http
from tests.areas.tasks.factories import make_task

LIMIT = 40_000  # in place of the 6 MB, so that a few rows reach it


@pytest.fixture()
def small_payload(monkeypatch):
    monkeypatch.setattr(http, "LAMBDA_PAYLOAD_LIMIT", LIMIT)


def runtime_size(response) -> int:
    """What the python3.11 runtime writes of the body (ensure_ascii), less its two quotes."""
    return len(json.dumps(response.body.decode(), ensure_ascii=True)) - 2


def test_a_page_too_large_is_cut_to_the_rows_that_fit_and_the_next_page_follows(api, db, exec_user, small_payload):
    """Twelve tasks of 2,000 non-ASCII characters each (12 KB apiece as the runtime writes them): a page of all
    twelve would take 150 KB. The pages answered carry what fits, in the list's order, and together every task
    once; `total` stays the whole count."""
    made = [make_task(db, title=f"t{i:02}", description="\u00e9" * 2000, created_by=exec_user.id) for i in range(12)]
    seen, offset, pages = [], 0, 0
    while True:
        response = api.get(f"/api/tasks?limit=12&offset={offset}", as_=exec_user)
        assert response.status == 200, response
        body = response.json
        assert runtime_size(response) <= LIMIT
        assert body["total"] == 12 and len(body["tasks"]) == min(body["limit"], 12 - offset)
        seen += [task["id"] for task in body["tasks"]]
        pages += 1
        offset += body["limit"]
        if offset >= body["total"]:
            break
    assert pages > 1 and len(seen) == len(set(seen)) == 12
    assert set(seen) == {task.id for task in made}
    whole = api.get("/api/tasks?limit=12", as_=exec_user)
    assert whole.json["limit"] < 12 and [t["id"] for t in whole.json["tasks"]] == seen[:whole.json["limit"]]


def test_a_page_within_the_limit_is_untouched(api, db, exec_user, small_payload):
    for i in range(3):
        make_task(db, title=f"t{i}", description="short", created_by=exec_user.id)
    body = api.get("/api/tasks?limit=7", as_=exec_user).json
    assert len(body["tasks"]) == 3 and body["limit"] == 7


def test_a_first_row_that_alone_is_too_large_is_still_a_413(api, db, exec_user, small_payload):
    make_task(db, title="huge", description="\u00e9" * 8000, created_by=exec_user.id)  # 48 KB as written
    response = api.get("/api/tasks", as_=exec_user)
    assert response.status == 413 and "6 MB" in response.json["error"]


def test_a_task_detail_too_large_cuts_its_subtasks_to_those_that_fit(api, db, exec_user, small_payload):
    """A task's detail embeds its subtasks whole: five subtasks with long texts made the detail a 413 for every
    reader (session 22's growth audit). The subtasks are cut to those that fit, in order; the task's
    `subtask_count` still counts them all (GET /subtasks pages through them)."""
    parent = make_task(db, title="parent", created_by=exec_user.id)
    for i in range(6):
        make_task(db, title=f"s{i}", description="\u00e9" * 2000, parent_task_id=parent.id, created_by=exec_user.id,
                  sort_order=i)
    response = api.get(f"/api/tasks/{parent.id}", as_=exec_user)
    assert response.status == 200, response
    assert runtime_size(response) <= LIMIT
    body = response.json
    titles = [t["title"] for t in body["subtasks"]]
    assert 0 < len(titles) < 6 and titles == [f"s{i}" for i in range(len(titles))]
    assert body["task"]["subtask_count"] == 6
    assert set(body) == {"task", "todos", "subtasks", "watchers", "agent"}


def test_a_task_detail_whose_task_alone_fits_answers_no_subtask_rather_than_413(api, db, exec_user, small_payload):
    parent = make_task(db, title="parent", description="\u00e9" * 5000, created_by=exec_user.id)  # 30 KB
    make_task(db, title="s", description="\u00e9" * 2000, parent_task_id=parent.id, created_by=exec_user.id)
    response = api.get(f"/api/tasks/{parent.id}", as_=exec_user)
    assert response.status == 200 and response.json["subtasks"] == [], response
    assert response.json["task"]["subtask_count"] == 1
