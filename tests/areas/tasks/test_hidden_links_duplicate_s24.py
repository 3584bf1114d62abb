"""A duplicate copies only the links the caller could set on a create (session 24, copies audit): a parent task,
project, roadmap item or sprint the caller cannot see, or a record that no longer exists, is left null on the copy
(a duplicate has no body naming it, so nothing is refused), where POST /api/tasks naming it answers 400. Before, the
copy was filed under a hidden parent or in a hidden project. docs/decisions/tasks.md, Duplicate."""
from __future__ import annotations

from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
from chalicelib.areas.sprints.models import Sprint
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import make_user


def _roadmap_item(db, project) -> RoadmapItem:
    roadmap = Roadmap(name="Plan", project_id=project.id)
    db.add(roadmap)
    db.flush()
    item = RoadmapItem(roadmap_id=roadmap.id, title="Beta")
    db.add(item)
    db.flush()
    return item


def _sprint(db, project) -> Sprint:
    sprint = Sprint(project_id=project.id, name="S1", status="active")
    db.add(sprint)
    db.flush()
    return sprint


def test_a_duplicate_is_not_filed_under_a_parent_the_caller_cannot_see(api, db, employee):
    other = make_user(db)
    parent = make_task(db, title="Hidden parent", created_by=other.id, reporter_id=other.id)
    sub = make_task(db, title="Mine", parent_task_id=parent.id, assignee_id=employee.id, created_by=other.id)
    assert api.get(f"/api/tasks/{parent.id}", as_=employee).status == 404
    made = api.post("/api/tasks", as_=employee, json={"title": "x", "parent_task_id": parent.id})
    assert made.status == 400, made  # a create naming that parent is refused
    answer = api.post(f"/api/tasks/{sub.id}/duplicate", as_=employee)
    assert answer.status == 201, answer
    assert answer.json["task"]["parent_task_id"] is None, "copy filed under a parent the caller cannot see"
    assert answer.json["task"]["assignee_id"] == employee.id  # the rest is copied
    assert api.get(f"/api/tasks/{answer.json['task']['id']}", as_=employee).status == 200


def test_a_duplicate_is_not_linked_to_a_project_roadmap_item_or_sprint_the_caller_cannot_see(api, db, employee):
    other = make_user(db)
    project = make_project(db, owner_id=other.id)
    item, sprint = _roadmap_item(db, project), _sprint(db, project)
    task = make_task(db, title="In a hidden project", resource_type="project", resource_id=project.id,
                     roadmap_item_id=item.id, sprint_id=sprint.id, assignee_id=employee.id, created_by=other.id)
    assert api.get(f"/api/projects/{project.id}", as_=employee).status == 404
    for field, value in (("resource_id", project.id), ("roadmap_item_id", item.id), ("sprint_id", sprint.id)):
        body = {"title": "x", field: value, **({"resource_type": "project"} if field == "resource_id" else {})}
        made = api.post("/api/tasks", as_=employee, json=body)
        assert made.status == 400, (field, made)
    answer = api.post(f"/api/tasks/{task.id}/duplicate", as_=employee)
    assert answer.status == 201, answer
    copy = answer.json["task"]
    assert (copy["resource_type"], copy["resource_id"]) == (None, None), "copy linked to a hidden project"
    assert copy["roadmap_item_id"] is None, "copy linked to a roadmap item of a hidden project"
    assert copy["sprint_id"] is None, "copy put in a sprint of a hidden project"


def test_a_duplicate_keeps_the_links_the_caller_can_see(api, db, employee):
    project = make_project(db, members=[employee])
    item, sprint = _roadmap_item(db, project), _sprint(db, project)
    parent = make_task(db, title="My parent", assignee_id=employee.id)
    task = make_task(db, title="Linked", resource_type="project", resource_id=project.id, roadmap_item_id=item.id,
                     sprint_id=sprint.id, parent_task_id=parent.id, assignee_id=employee.id)
    answer = api.post(f"/api/tasks/{task.id}/duplicate", as_=employee)
    assert answer.status == 201, answer
    copy = answer.json["task"]
    assert (copy["resource_type"], copy["resource_id"], copy["roadmap_item_id"], copy["sprint_id"],
            copy["parent_task_id"]) == ("project", project.id, item.id, sprint.id, parent.id)


def test_a_duplicate_drops_a_link_to_a_record_that_no_longer_exists(api, db, exec_user):
    """A link the record's delete did not clear (one written before deletes unlinked, or by another path) is not
    carried on: the copy names no missing deal, company, project or roadmap item."""
    for resource_type in ("deal", "company", "project"):
        task = make_task(db, title=f"Dead {resource_type}", resource_type=resource_type, resource_id="gone-id",
                         roadmap_item_id="gone-item")
        answer = api.post(f"/api/tasks/{task.id}/duplicate", as_=exec_user)
        assert answer.status == 201, answer
        copy = answer.json["task"]
        assert (copy["resource_type"], copy["resource_id"], copy["roadmap_item_id"]) == (None, None, None), copy
