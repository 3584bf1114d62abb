"""Sprints are seen and changed only through a project the caller can see (issue 20 item 3): out of
scope answers 404 like a missing sprint, the list leaves them out, and a task may not name them."""
from sqlalchemy import select

from chalicelib.areas.sprints.models import Sprint
from chalicelib.areas.tasks.models import Task
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import make_squad, make_user


def _sprint(db, project, name="Sprint") -> Sprint:
    sprint = Sprint(project_id=project.id, name=name, status="active")
    db.add(sprint)
    db.flush()
    return sprint


def _people(db):
    owner = make_user(db, access_level="employee")
    outsider = make_user(db, access_level="employee")
    manager_elsewhere = make_user(db, access_level="manager")
    make_squad(db, name="Other squad", manager_id=manager_elsewhere.id)
    executive = make_user(db, access_level="executive")
    hidden = make_project(db, owner_id=owner.id)
    mine = make_project(db, owner_id=outsider.id)
    return owner, outsider, manager_elsewhere, executive, hidden, mine


def test_a_hidden_projects_sprint_is_404_for_read_update_and_delete(api, db):
    owner, outsider, manager_elsewhere, executive, hidden, _mine = _people(db)
    sprint = _sprint(db, hidden, "Hidden sprint")
    for user in (outsider, manager_elsewhere):
        assert api.get(f"/api/sprints/{sprint.id}", as_=user).status == 404
        assert api.put(f"/api/sprints/{sprint.id}", as_=user, json={"name": "Renamed", "status": "closed"}).status == 404
        assert api.delete(f"/api/sprints/{sprint.id}", as_=user).status in (403, 404)
    db.expire_all()
    stored = db.get(Sprint, sprint.id)
    assert stored.name == "Hidden sprint" and stored.status == "active"
    assert api.get(f"/api/sprints/{sprint.id}", as_=owner).status == 200
    assert api.get(f"/api/sprints/{sprint.id}", as_=executive).json["sprint"]["project_name"] == hidden.name


def test_the_list_leaves_out_sprints_of_hidden_projects(api, db):
    owner, outsider, manager_elsewhere, executive, hidden, mine = _people(db)
    hidden_sprint, my_sprint = _sprint(db, hidden), _sprint(db, mine)
    listed = {s["id"] for s in api.get("/api/sprints", as_=outsider).json["sprints"]}
    assert my_sprint.id in listed and hidden_sprint.id not in listed
    assert api.get(f"/api/sprints?project_id={hidden.id}", as_=outsider).json["sprints"] == []
    assert hidden_sprint.id not in {s["id"] for s in api.get("/api/sprints", as_=manager_elsewhere).json["sprints"]}
    assert {hidden_sprint.id, my_sprint.id} <= {s["id"] for s in api.get("/api/sprints", as_=executive).json["sprints"]}


def test_a_task_cannot_name_a_sprint_of_a_hidden_project(api, db):
    owner, outsider, _manager, executive, hidden, mine = _people(db)
    hidden_sprint, my_sprint = _sprint(db, hidden), _sprint(db, mine)
    created = api.post("/api/tasks", as_=outsider, json={"title": "Sneak in", "sprint_id": hidden_sprint.id})
    assert created.status == 400, created
    assert created.json["details"][0]["field"] == "sprint_id"
    assert db.scalar(select(Task).where(Task.title == "Sneak in")) is None
    task = make_task(db, created_by=outsider.id, assignee_id=outsider.id)
    assert api.put(f"/api/tasks/{task.id}", as_=outsider, json={"sprint_id": hidden_sprint.id}).status == 400
    assert api.put(f"/api/tasks/{task.id}", as_=outsider, json={"sprint_id": my_sprint.id}).status == 200
    assert api.put(f"/api/tasks/{task.id}", as_=executive, json={"sprint_id": hidden_sprint.id}).status == 200
