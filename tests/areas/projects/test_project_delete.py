"""What deleting a project does to the records of other areas (docs/decisions/projects.md, "Deleting a project"):
time entries and budgets (money and work done) hold it, a 409 naming them, nothing changed; its sprints and
roadmaps (planning) go with it, the tasks they held kept with their other links."""
from sqlalchemy import func, select

from chalicelib.areas.budgets.models import Budget
from chalicelib.areas.projects.models import Project
from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
from chalicelib.areas.sprints.models import Sprint
from chalicelib.areas.tasks.models import Task
from chalicelib.areas.timesheets.models import TimeEntry
from chalicelib.core.models import HistoryEntry
from tests.areas.budgets.factories import make_budget
from tests.areas.tasks.factories import make_task
from tests.areas.timesheets.factories import make_entry

from .factories import make_project


def _deleted_entries(db, project_id: str) -> int:
    return db.scalar(select(func.count(HistoryEntry.id)).where(
        HistoryEntry.entity_type == "project", HistoryEntry.entity_id == project_id, HistoryEntry.action == "deleted"))


def test_a_project_with_time_entries_and_budgets_is_not_deleted(api, db, exec_user):
    project = make_project(db, name="Billable")
    for _ in range(2):
        make_entry(db, exec_user, project_id=project.id, status="approved")
    budget = make_budget(db, resource_id=project.id)
    sprint = Sprint(project_id=project.id, name="Sprint 1")
    db.add(sprint)
    db.flush()
    task = make_task(db, resource_type="project", resource_id=project.id, sprint_id=sprint.id)

    response = api.delete(f"/api/projects/{project.id}", as_=exec_user)
    assert response.status == 409, response
    assert response.json["error"] == ("The project has 2 time entries and 1 budget: remove or move them first, "
                                      "or set its status instead")
    db.expire_all()
    assert db.get(Project, project.id) is not None
    assert db.get(Sprint, sprint.id) is not None
    assert (db.get(Task, task.id).resource_id, db.get(Task, task.id).sprint_id) == (project.id, sprint.id)
    assert _deleted_entries(db, project.id) == 0
    assert db.scalar(select(func.count(TimeEntry.id)).where(TimeEntry.project_id == project.id)) == 2

    # with the entries moved off and the budget deleted, a cancelled budget of it still holds it
    assert api.delete(f"/api/budgets/{budget.id}", as_=exec_user).status == 200
    db.execute(TimeEntry.__table__.update().where(TimeEntry.project_id == project.id).values(project_id=None))
    db.add(Budget(name="Cancelled", resource_type="project", resource_id=project.id, currency="AUD",
                  status="cancelled"))
    db.flush()
    response = api.delete(f"/api/projects/{project.id}", as_=exec_user)
    assert response.status == 409 and response.json["error"].startswith("The project has 1 budget:"), response


def test_a_single_time_entry_holds_the_project(api, db, exec_user):
    project = make_project(db)
    make_entry(db, exec_user, project_id=project.id, status="draft")
    response = api.delete(f"/api/projects/{project.id}", as_=exec_user)
    assert response.status == 409 and response.json["error"].startswith("The project has 1 time entry:"), response


def test_a_budget_of_a_deal_does_not_hold_a_project(api, db, exec_user):
    project = make_project(db)
    db.add(Budget(name="Deal budget", resource_type="deal", resource_id=project.id, currency="AUD", status="draft"))
    db.flush()
    assert api.delete(f"/api/projects/{project.id}", as_=exec_user).status == 200


def _plan(api, db, user, project):
    """A sprint and a roadmap with an item of `project`, and a task in both (through the API where it has one)."""
    sprint = api.post("/api/sprints", json={"project_id": project.id, "name": "S"}, as_=user).json["sprint"]
    roadmap = api.post("/api/roadmaps", json={"name": "R", "project_id": project.id}, as_=user).json["roadmap"]
    item = api.post(f"/api/roadmaps/{roadmap['id']}/items", json={"title": "I"}, as_=user).json["item"]
    task = make_task(db, resource_type="project", resource_id=project.id, sprint_id=sprint["id"],
                     roadmap_item_id=item["id"], assignee_id=user.id)
    return sprint, roadmap, item, task


def test_deleting_a_project_deletes_its_sprints_and_roadmaps_and_keeps_their_tasks(api, db, exec_user):
    project, other = make_project(db, name="Gone"), make_project(db, name="Kept")
    sprint, roadmap, item, task = _plan(api, db, exec_user, project)
    kept_sprint, kept_roadmap, kept_item, kept_task = _plan(api, db, exec_user, other)
    loose = api.post("/api/roadmaps", json={"name": "No project"}, as_=exec_user).json["roadmap"]
    project_id, other_id = project.id, other.id

    response = api.delete(f"/api/projects/{project_id}", as_=exec_user)
    assert response.status == 200 and response.json == {"ok": True}, response

    assert api.get(f"/api/sprints/{sprint['id']}", as_=exec_user).status == 404
    assert api.get(f"/api/roadmaps/{roadmap['id']}", as_=exec_user).status == 404
    db.expire_all()
    assert db.get(RoadmapItem, item["id"]) is None
    task_now = api.get(f"/api/tasks/{task.id}", as_=exec_user).json["task"]
    assert (task_now["sprint_id"], task_now["roadmap_item_id"], task_now["resource_id"]) == (None, None, None)
    assert task_now["assignee_id"] == exec_user.id and task_now["title"] == task.title
    assert _deleted_entries(db, project_id) == 1

    # another project's planning, and a roadmap without a project, are untouched
    assert api.get(f"/api/sprints/{kept_sprint['id']}", as_=exec_user).status == 200
    detail = api.get(f"/api/roadmaps/{kept_roadmap['id']}", as_=exec_user).json
    assert [i["id"] for i in detail["items"]] == [kept_item["id"]]
    assert [t["id"] for t in detail["tasks"]] == [kept_task.id]
    assert api.get(f"/api/roadmaps/{loose['id']}", as_=exec_user).status == 200
    kept = db.get(Task, kept_task.id)
    assert (kept.sprint_id, kept.roadmap_item_id, kept.resource_id) == (kept_sprint["id"], kept_item["id"], other_id)


def test_a_project_delete_costs_the_same_statements_whatever_its_planning(api, db, exec_user, count_queries):
    counts = []
    for size in (1, 20):
        project = make_project(db)
        project_id = project.id
        sprints = [Sprint(project_id=project_id, name=f"S{n}") for n in range(size)]
        roadmaps = [Roadmap(name=f"R{n}", project_id=project.id) for n in range(size)]
        db.add_all(sprints + roadmaps)
        db.flush()
        items = [RoadmapItem(roadmap_id=r.id, title="I", position=0) for r in roadmaps]
        db.add_all(items)
        db.flush()
        for sprint, item in zip(sprints, items):
            make_task(db, resource_type="project", resource_id=project.id, sprint_id=sprint.id,
                      roadmap_item_id=item.id)
        sprint_ids, item_ids = [s.id for s in sprints], [i.id for i in items]
        with count_queries() as counter:
            assert api.delete(f"/api/projects/{project_id}", as_=exec_user).status == 200
        counts.append(counter.count)
        db.expire_all()
        assert db.scalar(select(func.count(Sprint.id)).where(Sprint.project_id == project_id)) == 0
        assert db.scalar(select(func.count(Roadmap.id)).where(Roadmap.project_id == project_id)) == 0
        assert db.scalar(select(func.count(Task.id)).where(Task.sprint_id.in_(sprint_ids))) == 0
        assert db.scalar(select(func.count(Task.id)).where(
            Task.roadmap_item_id.in_(item_ids))) == 0
        db.refresh(exec_user)  # read back here, not by the next request's token
    assert counts[0] == counts[1], counts
