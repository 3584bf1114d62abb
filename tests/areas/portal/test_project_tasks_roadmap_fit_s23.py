"""Session 23: the portal's project tasks (`GET /api/portal/projects/:id/tasks`) and project roadmap
(`GET /api/portal/projects/:id/roadmap`) answered whole: up to 500 tasks with descriptions of up to 50,000
characters, up to 500 roadmap items with descriptions of up to 20,000. Enough of them made the route a 413 for every
reader. The tasks are now a paged list (`{ tasks, total, total_exact, limit, offset }`, `limit`/`offset`, cut to the
rows that fit, in the same order); the roadmap's `items` are cut to those that fit, and `items_limit` (present only
then) says how many it carries (docs/decisions/portal.md)."""
import json
from datetime import UTC, datetime, timedelta

from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
from chalicelib.areas.tasks.models import Task
from chalicelib.core.http import LAMBDA_PAYLOAD_LIMIT
from chalicelib.core.locks import insert_rows
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project

TASK_TEXT = "\u00e9" * 50_000  # a task's longest description: 300 KB as the python3.11 runtime writes it
ITEM_TEXT = "\u00e9" * 20_000  # a roadmap item's longest description: 120 KB
T0 = datetime(2030, 1, 1, tzinfo=UTC)
TASK_KEYS = {"id", "title", "description", "parent_task_id", "due_date", "start_date", "created_at", "updated_at",
             "status_label", "status_value", "status_color", "priority_label", "priority_value", "type_label",
             "assignee_id", "assignee_name"}


def runtime_size(response) -> int:
    """What the python3.11 runtime writes of the body (ensure_ascii), less its two quotes."""
    return len(json.dumps(response.body.decode(), ensure_ascii=True)) - 2


def _tasks(db, project, n, description, *, private=()):
    """n tasks of the project, listed t00, t01, ... (newest created first: the list's order), `private` indexes
    private."""
    insert_rows(db, Task, [{"title": f"t{i:02}", "description": description, "resource_type": "project",
                            "resource_id": project.id, "is_private": i in private,
                            "created_at": T0 - timedelta(minutes=i)} for i in range(n)])


def _roadmap(db, project, n, description):
    roadmap = Roadmap(name="R", project_id=project.id)
    db.add(roadmap)
    db.flush()
    insert_rows(db, RoadmapItem, [{"roadmap_id": roadmap.id, "title": f"i{i:02}", "description": description,
                                   "position": i} for i in range(n)])
    return roadmap


def _walk_tasks(portal, company, project, offset, total):
    seen = []
    while offset < total:
        page = portal.get(f"/projects/{project.id}/tasks?offset={offset}", company)
        assert page.status == 200, page.json
        assert runtime_size(page) <= LAMBDA_PAYLOAD_LIMIT
        assert page.json["total"] == total and page.json["offset"] == offset
        seen += [t["title"] for t in page.json["tasks"]]
        offset += page.json["limit"]
    return seen


def test_tasks_past_6_mb_are_cut_to_a_page_that_fits_and_the_rest_follow(portal, db):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    _tasks(db, project, 25, TASK_TEXT)  # 7.5 MB of tasks
    response = portal.get(f"/projects/{project.id}/tasks", mine)
    assert response.status == 200, response.json
    assert runtime_size(response) <= LAMBDA_PAYLOAD_LIMIT
    body = response.json
    assert set(body) == {"tasks", "total", "total_exact", "limit", "offset"}
    titles = [t["title"] for t in body["tasks"]]
    assert 0 < len(titles) < 25 and titles == [f"t{i:02}" for i in range(len(titles))]
    assert (body["total"], body["total_exact"], body["limit"], body["offset"]) == (25, 1, len(titles), 0)
    rest = _walk_tasks(portal, mine, project, body["limit"], 25)
    assert titles + rest == [f"t{i:02}" for i in range(25)]


def test_the_tasks_route_is_paged_in_list_order_without_private_tasks(portal, db):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    _tasks(db, project, 6, "short", private={2})
    whole = portal.get(f"/projects/{project.id}/tasks", mine)
    assert whole.status == 200, whole.json
    assert [t["title"] for t in whole.json["tasks"]] == ["t00", "t01", "t03", "t04", "t05"]
    assert set(whole.json["tasks"][0]) == TASK_KEYS
    assert whole.json["tasks"][0]["description"] == "short"
    assert (whole.json["total"], whole.json["limit"], whole.json["offset"]) == (5, 500, 0)
    page = portal.get(f"/projects/{project.id}/tasks?limit=2&offset=1", mine)
    assert page.status == 200, page.json
    assert [t["title"] for t in page.json["tasks"]] == ["t01", "t03"]
    assert (page.json["total"], page.json["total_exact"], page.json["limit"], page.json["offset"]) == (5, 1, 2, 1)
    assert portal.get(f"/projects/{project.id}/tasks?limit=0", mine).status == 400
    assert portal.get(f"/projects/{project.id}/tasks?limit=501", mine).status == 400


def test_roadmap_items_past_6_mb_are_cut_to_those_that_fit(portal, db):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    roadmap = _roadmap(db, project, 60, ITEM_TEXT)  # 7.2 MB of items
    response = portal.get(f"/projects/{project.id}/roadmap", mine)
    assert response.status == 200, response.json
    assert runtime_size(response) <= LAMBDA_PAYLOAD_LIMIT
    body = response.json
    assert set(body) == {"roadmap", "items", "items_limit"}
    assert body["roadmap"]["id"] == roadmap.id
    titles = [i["title"] for i in body["items"]]
    assert 0 < len(titles) < 60 and titles == [f"i{i:02}" for i in range(len(titles))]
    assert body["items_limit"] == len(titles)


def test_a_roadmap_that_fits_is_unchanged(portal, db):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    assert portal.get(f"/projects/{project.id}/roadmap", mine).json == {"roadmap": None, "items": []}
    _roadmap(db, project, 3, "short")
    body = portal.get(f"/projects/{project.id}/roadmap", mine).json
    assert set(body) == {"roadmap", "items"}
    assert [i["title"] for i in body["items"]] == ["i00", "i01", "i02"]
    assert body["items"][0]["description"] == "short"


def test_a_counted_tasks_page_costs_the_same_statements_at_5_and_100_rows(portal, db, count_queries):
    """A full page (limit 3) is counted: the page and its count cost the same statements whatever the rows."""
    from tests.factories import constant_statements

    mine = make_client(db)
    project = make_project(db, company_id=mine.id)

    def grow(n):
        insert_rows(db, Task, [{"title": "g", "resource_type": "project", "resource_id": project.id,
                                "is_private": False} for _ in range(n)])

    body = constant_statements(count_queries, lambda: portal.get(f"/projects/{project.id}/tasks?limit=3", mine),
                               grow, lambda b: b["total"])
    assert len(body["tasks"]) == 3 and body["total_exact"] == 1
