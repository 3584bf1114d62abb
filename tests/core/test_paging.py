"""One paging shape (issue 10 item 4): `limit` (1..500, default 500) and `offset`, answered with
`total`, `total_exact`, `limit` and `offset` beside the plural key; the task list is the worked example. The
count stops past core.query.COUNT_LIMIT rows or the asked page's end (docs/decisions/paging.md)."""
import re

import pytest


@pytest.fixture
def five_tasks(api, exec_user):
    ids = []
    for number in range(5):
        response = api.post("/api/tasks", json={"title": f"task {number}", "sort_order": number}, as_=exec_user)
        assert response.status == 201
        ids.append(response.json["task"]["id"])
    return ids


def test_default_page_holds_everything_with_the_total(api, exec_user, five_tasks):
    body = api.get("/api/tasks", as_=exec_user).json
    assert [task["id"] for task in body["tasks"]] == five_tasks
    assert (body["total"], body["limit"], body["offset"]) == (5, 500, 0)


def test_limit_and_offset_walk_the_list(api, exec_user, five_tasks):
    seen = []
    for offset in (0, 2, 4):
        body = api.get(f"/api/tasks?limit=2&offset={offset}", as_=exec_user).json
        assert (body["total"], body["limit"], body["offset"]) == (5, 2, offset)
        seen += [task["id"] for task in body["tasks"]]
    assert seen == five_tasks
    past = api.get("/api/tasks?limit=2&offset=10", as_=exec_user).json
    assert past["tasks"] == [] and past["total"] == 5


def test_filters_apply_to_the_total(api, exec_user, five_tasks):
    body = api.get("/api/tasks?search=task%203&limit=1", as_=exec_user).json
    assert body["total"] == 1 and len(body["tasks"]) == 1


def test_the_total_is_exact_and_says_so(api, exec_user, five_tasks):
    for params in ("", "?limit=2", "?limit=2&offset=4"):
        assert api.get(f"/api/tasks{params}", as_=exec_user).json["total_exact"] == 1


@pytest.fixture
def count_limit_3(monkeypatch):
    from chalicelib.core import query

    monkeypatch.setattr(query, "COUNT_LIMIT", 3)


@pytest.mark.parametrize("params, total, exact", [
    ("limit=2", 3, 0),            # more than COUNT_LIMIT match: at least 3
    ("limit=2&offset=2", 4, 0),   # the count reads to the asked page's end (4) and one more: at least 4
    ("limit=2&offset=4", 5, 1),   # the list ends inside the window: exact
    ("limit=3&offset=3", 5, 1),
    ("", 5, 1),                   # the first page holds every row: no count at all
])
def test_the_count_stops_past_count_limit_or_the_pages_end(api, exec_user, five_tasks, count_limit_3, params,
                                                           total, exact):
    body = api.get(f"/api/tasks?{params}", as_=exec_user).json
    assert (body["total"], body["total_exact"]) == (total, exact)
    assert len(body["tasks"]) == min(body["limit"], 5 - body["offset"])


def test_a_list_paged_by_paginate_counts_within_the_same_window(api, db, exec_user, count_limit_3):
    """core.query.paginate (lists that read ORM rows) answers like record_page."""
    from tests.factories import make_user

    for _ in range(5):
        make_user(db)
    whole = api.get("/api/admin/users?limit=500", as_=exec_user).json
    users = len(whole["users"])
    assert users >= 6 and (whole["total"], whole["total_exact"]) == (users, 1)
    cut = api.get("/api/admin/users?limit=1", as_=exec_user).json
    assert (cut["total"], cut["total_exact"], len(cut["users"])) == (3, 0, 1)
    last = api.get(f"/api/admin/users?limit=2&offset={users - 2}", as_=exec_user).json
    assert (last["total"], last["total_exact"]) == (users, 1)


@pytest.mark.parametrize("params", ["limit=0", "limit=501", "limit=abc", "offset=-1", "offset=x"])
def test_bad_paging_is_a_400_naming_the_field(api, exec_user, params):
    response = api.get(f"/api/tasks?{params}", as_=exec_user)
    assert response.status == 400
    assert response.json["details"][0]["field"] == params.split("=")[0]


def test_a_page_costs_at_most_two_statements_beyond_auth(api, exec_user, five_tasks, count_queries, engine):
    with count_queries() as whole:
        api.get("/api/tasks", as_=exec_user)
    with count_queries() as cut:
        api.get("/api/tasks?limit=2", as_=exec_user)
    # the count is asked only when the page is cut; on Postgres it travels in the statement of the page's
    # lookups (core.query.record_page), elsewhere it is a statement of its own
    total = re.compile(r"count\(\*\) AS n\b")
    assert len([s for s in cut.statements if total.search(s)]) == 1
    assert not [s for s in whole.statements if total.search(s)]
    postgres = engine.dialect.name == "postgresql"
    assert cut.count == whole.count + (0 if postgres else 1)
    assert whole.count <= (3 if postgres else 4)  # the caller, the page, its lookups (names and counts)


def test_histories_subtasks_and_project_tasks_page_instead_of_cutting(api, db, exec_user):
    from tests.areas.projects.factories import make_project

    task = api.post("/api/tasks", json={"title": "paged"}, as_=exec_user).json["task"]
    from tests.factories import make_user

    for title in ("one", "two", "three"):
        assignee = make_user(db)
        assert api.put(f"/api/tasks/{task['id']}", json={"assignee_id": assignee.id}, as_=exec_user).status == 200
        assert api.post(f"/api/tasks/{task['id']}/subtasks", json={"title": title}, as_=exec_user).status == 201
    history = api.get(f"/api/tasks/{task['id']}/history?limit=2", as_=exec_user).json
    assert len(history["history"]) == 2 and history["total"] == 4 and history["limit"] == 2
    subtasks = api.get(f"/api/tasks/{task['id']}/subtasks?limit=2&offset=2", as_=exec_user).json
    assert len(subtasks["subtasks"]) == 1 and subtasks["total"] == 3
    project = make_project(db)
    for title in ("a", "b", "c"):
        api.post("/api/tasks", json={"title": title, "resource_type": "project", "resource_id": project.id},
                 as_=exec_user)
    listed = api.get(f"/api/projects/{project.id}/tasks?limit=2", as_=exec_user).json
    assert len(listed["tasks"]) == 2 and listed["total"] == 3
    assert api.get(f"/api/projects/{project.id}/history?limit=1", as_=exec_user).json["limit"] == 1


def test_a_list_that_turns_its_rows_into_records_keeps_the_page_s_count_flag(api, exec_user, count_limit_3):
    """Lists whose service reads rows and then builds records (sla, proposals, agents, contracts) pass the
    page's total_exact on with the records (dataclasses.replace), not a page rebuilt with the default."""
    for name in "ABCDE":
        assert api.post("/api/sla/policies", as_=exec_user, json={"name": name}).status == 201
    cut = api.get("/api/sla/policies?limit=1", as_=exec_user).json
    assert (cut["total"], cut["total_exact"], [p["name"] for p in cut["policies"]]) == (3, 0, ["A"])
    whole = api.get("/api/sla/policies", as_=exec_user).json
    assert (whole["total"], whole["total_exact"], len(whole["policies"])) == (5, 1, 5)


def test_a_list_shape_is_built_once_and_each_request_keeps_its_own_values(api, db, exec_user, five_tasks):
    """On Postgres record_page keeps the page and count statements of a list statement's shape (core.query
    `_shape`), its values as named parameters: requests of one shape with other values (an IN list of another
    length, a search with LIKE's special characters, another page) answer from their own values, and reuse
    the one kept shape."""
    from chalicelib.core import query

    api.post("/api/tasks", json={"title": "100% done_x", "sort_order": 9}, as_=exec_user)
    shapes = len(query._SHAPES)

    def titles(params):
        return [task["title"] for task in api.get(f"/api/tasks?{params}", as_=exec_user).json["tasks"]]

    assert titles("search=task%203") == ["task 3"]
    assert titles("search=task%201") == ["task 1"]
    assert titles("search=100%25") == ["100% done_x"]  # % and _ match literally
    assert titles("search=1%25d") == []  # as a wildcard, 1%d would match "100% d"
    assert titles("search=n_e") == []  # as a wildcard, n_e would match "one" in "done"
    assert titles("search=e_x") == ["100% done_x"]
    assert titles("search=task&limit=2&offset=1") == ["task 1", "task 2"]
    body = api.get("/api/tasks?search=task&limit=2&offset=3", as_=exec_user).json
    assert [t["title"] for t in body["tasks"]] == ["task 3", "task 4"] and body["total"] == 5
    if db.get_bind().dialect.name == "postgresql":
        assert len(query._SHAPES) - shapes <= 1  # the search shape (other pages: parameters)


def test_a_list_beyond_the_kept_shapes_is_built_per_request(api, exec_user, five_tasks, monkeypatch):
    from chalicelib.core import query

    monkeypatch.setattr(query, "_SHAPES", {})
    monkeypatch.setattr(query, "SHAPES_MAX", 0)
    body = api.get("/api/tasks?search=task%202&limit=1", as_=exec_user).json
    assert [t["title"] for t in body["tasks"]] == ["task 2"] and body["total"] == 1
    body = api.get("/api/tasks?limit=2&offset=1", as_=exec_user).json
    assert len(body["tasks"]) == 2 and body["total"] == 5
    assert query._SHAPES == {}
