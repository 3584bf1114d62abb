"""Session 29 (tool-scope audit): a roadmap reaches two other areas' records, a project (its `project_id`, its items'
goals) and tasks (the detail's `tasks`). docs/decisions/roadmaps.md says the project "must be a project the caller
can see" and the detail lists the tasks "that the caller may see (tasks' scoping)". Only the row scopes were asked:
a head (whose scopes hold every project and task) with roadmaps:update but `projects` or `tasks` none (an override)
put a roadmap in any project, named and read its goals, and read the titles of every task linked to its items. Now
the other area's tool at view is asked as well: 400 for a project or goal, as a missing one; a null `goal_title`;
no task in the detail."""
import pytest

from chalicelib.areas.projects.models import ProjectGoal
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import grant, make_user


def goal(db, project, title="Secret launch"):
    made = ProjectGoal(project_id=project.id, title=title, position=0)
    db.add(made)
    db.flush()
    return made


@pytest.fixture
def head(db):
    return make_user(db, access_level="head")


def test_a_roadmap_cannot_name_a_project_the_caller_may_not_view(api, db, head):
    project = make_project(db)
    grant(db, head, "projects", "none")  # an override: this head may not view projects
    refused = api.post("/api/roadmaps", as_=head, json={"name": "Q3", "project_id": project.id})
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == ["project_id"]
    roadmap = api.post("/api/roadmaps", as_=head, json={"name": "Q3"}).json["roadmap"]
    moved = api.put(f"/api/roadmaps/{roadmap['id']}", as_=head, json={"project_id": project.id})
    assert moved.status == 400, moved
    grant(db, head, "projects", "view")
    assert api.put(f"/api/roadmaps/{roadmap['id']}", as_=head, json={"project_id": project.id}).status == 200


def test_goals_are_neither_named_to_nor_chosen_by_a_caller_who_may_not_view_projects(api, db, exec_user, head):
    project = make_project(db)
    launch = goal(db, project)
    roadmap = api.post("/api/roadmaps", as_=exec_user, json={"name": "Q3", "project_id": project.id}).json["roadmap"]
    path = f"/api/roadmaps/{roadmap['id']}"
    item = api.post(f"{path}/items", as_=exec_user, json={"title": "Beta", "goal_id": launch.id}).json["item"]
    assert item["goal_title"] == "Secret launch"
    grant(db, head, "projects", "none")
    detail = api.get(path, as_=head)
    assert detail.status == 200, detail
    assert detail.json["items"][0]["goal_id"] == launch.id and detail.json["items"][0]["goal_title"] is None
    assert api.get(f"{path}/items", as_=head).json["items"][0]["goal_title"] is None
    assert "Secret launch" not in str(detail.json)
    refused = api.post(f"{path}/items", as_=head, json={"title": "GA", "goal_id": launch.id})
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == ["goal_id"]
    renamed = api.put(f"{path}/items/{item['id']}", as_=head, json={"title": "Beta 2"})
    assert renamed.status == 200 and renamed.json["item"]["goal_title"] is None
    grant(db, head, "projects", "view")
    assert api.get(path, as_=head).json["items"][0]["goal_title"] == "Secret launch"


def test_the_detail_lists_no_task_to_a_caller_who_may_not_view_tasks(api, db, exec_user, head):
    roadmap = api.post("/api/roadmaps", as_=exec_user, json={"name": "Q3"}).json["roadmap"]
    path = f"/api/roadmaps/{roadmap['id']}"
    item = api.post(f"{path}/items", as_=exec_user, json={"title": "Beta"}).json["item"]
    make_task(db, title="Confidential launch", roadmap_item_id=item["id"])
    grant(db, head, "tasks", "none")  # an override: this head may not view tasks
    detail = api.get(path, as_=head)
    assert detail.status == 200, detail
    assert detail.json["tasks"] == [] and detail.json["tasks_total"] == 0
    grant(db, head, "tasks", "view")
    assert [t["title"] for t in api.get(path, as_=head).json["tasks"]] == ["Confidential launch"]
