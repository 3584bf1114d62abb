"""Session 29 (tool-scope audit): docs/decisions/tasks.md says a task's `resource_type`/`resource_id` "must name a
record the caller can see", its `roadmap_item_id` "a roadmap item in a roadmap the caller can see", its `sprint_id`
"a sprint in a project the caller can see", and that contacts are seen by "every deals holder". The checks asked the
records' row scope (or existence) alone: a head whose `projects`, `roadmaps` or `deals` permission is none (an
override; a head's scope holds every project, roadmap and sprint) linked tasks to any of them, learning which ids
exist, though those tools' routes answer them 403. Now the record's tool at view is asked as well (400, the answer
of a missing record), and a duplicate leaves such a link null, as it does for a record out of scope."""
import pytest

from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
from chalicelib.areas.sprints.models import Sprint
from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import add_row, grant, make_user


def _roadmap_item(db):
    roadmap = add_row(db, Roadmap, {"name": "Q3", "project_id": make_project(db).id}, {})
    return add_row(db, RoadmapItem, {"roadmap_id": roadmap.id, "title": "Beta", "position": 0}, {})


def _sprint(db):
    return add_row(db, Sprint, {"project_id": make_project(db).id, "name": "Sprint 1", "status": "active"}, {})


CASES = {
    "project": ("projects", lambda db: {"resource_type": "project", "resource_id": make_project(db).id}, "resource_id"),
    "deal": ("deals", lambda db: {"resource_type": "deal", "resource_id": make_deal(db).id}, "resource_id"),
    "company": ("deals", lambda db: {"resource_type": "company", "resource_id": make_company(db).id}, "resource_id"),
    "contact": ("deals", lambda db: {"reported_by_contact_id": make_contact(db).id}, "reported_by_contact_id"),
    "roadmap item": ("roadmaps", lambda db: {"roadmap_item_id": _roadmap_item(db).id}, "roadmap_item_id"),
    "sprint": ("projects", lambda db: {"sprint_id": _sprint(db).id}, "sprint_id"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_task_cannot_name_a_record_of_a_tool_the_caller_may_not_view(api, db, case):
    tool, build, field = CASES[case]
    head = make_user(db, access_level="head")
    links = build(db)
    grant(db, head, tool, "none")  # an override: this head may not view the tool
    refused = api.post("/api/tasks", as_=head, json={"title": "Linked", **links})
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == [field]
    task = make_task(db, reporter_id=head.id)
    moved = api.put(f"/api/tasks/{task.id}", as_=head, json=links)
    assert moved.status == 400, moved
    assert [d["field"] for d in moved.json["details"]] == [field]
    grant(db, head, tool, "view")
    assert api.post("/api/tasks", as_=head, json={"title": "Linked", **links}).status == 201
    assert api.put(f"/api/tasks/{task.id}", as_=head, json=links).status == 200


@pytest.mark.parametrize("case", ["project", "deal", "roadmap item", "sprint"])
def test_a_duplicate_leaves_null_a_link_of_a_tool_the_caller_may_not_view(api, db, exec_user, case):
    tool, build, _field = CASES[case]
    links = build(db)
    original = api.post("/api/tasks", as_=exec_user, json={"title": "Original", **links})
    assert original.status == 201, original
    head = make_user(db, access_level="head")
    grant(db, head, tool, "none")
    copy = api.post(f"/api/tasks/{original.json['task']['id']}/duplicate", as_=head)
    assert copy.status == 201, copy
    assert all(copy.json["task"][name] is None for name in links), copy.json["task"]
    grant(db, head, tool, "view")
    kept = api.post(f"/api/tasks/{original.json['task']['id']}/duplicate", as_=head)
    assert all(kept.json["task"][name] == value for name, value in links.items()), kept.json["task"]
