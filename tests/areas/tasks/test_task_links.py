"""A task's linked resource (resource_type, resource_id) must name an existing record the caller can see
(issue 20 item 3): a hidden project answers like a missing one (400), on create and on update."""
from sqlalchemy import select

from chalicelib.areas.tasks.models import Task
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import make_user


def test_create_refuses_hidden_missing_and_unknown_resources(api, db):
    owner = make_user(db, access_level="employee")
    outsider = make_user(db, access_level="employee")
    manager_elsewhere = make_user(db, access_level="manager")
    hidden = make_project(db, owner_id=owner.id)
    mine = make_project(db, owner_id=outsider.id)
    for user in (outsider, manager_elsewhere):
        for body in ({"resource_type": "project", "resource_id": hidden.id},
                     {"resource_type": "project", "resource_id": "00000000-0000-0000-0000-000000000000"},
                     {"resource_type": "deal", "resource_id": "no-such-deal"},
                     {"resource_type": "company", "resource_id": "no-such-company"},
                     {"resource_type": "spaceship", "resource_id": hidden.id},
                     {"resource_type": "project"}):
            response = api.post("/api/tasks", as_=user, json={"title": "Injected", **body})
            assert response.status == 400, (body, response)
            assert response.json["details"][0]["field"] in ("resource_id", "resource_type")
    assert db.scalar(select(Task).where(Task.title == "Injected")) is None
    ok = api.post("/api/tasks", as_=outsider, json={"title": "Mine", "resource_type": "project", "resource_id": mine.id})
    assert ok.status == 201, ok
    executive = make_user(db, access_level="executive")
    assert api.post("/api/tasks", as_=executive, json={"title": "Exec", "resource_type": "project",
                                                       "resource_id": hidden.id}).status == 201


def test_update_cannot_move_a_task_into_a_hidden_project(api, db):
    owner = make_user(db, access_level="employee")
    outsider = make_user(db, access_level="employee")
    hidden = make_project(db, owner_id=owner.id)
    mine = make_project(db, owner_id=outsider.id)
    task = make_task(db, created_by=outsider.id, assignee_id=outsider.id, resource_type="project", resource_id=mine.id)
    assert api.put(f"/api/tasks/{task.id}", as_=outsider, json={"resource_id": hidden.id}).status == 400
    db.expire_all()
    assert db.get(Task, task.id).resource_id == mine.id
    # clearing the link clears both fields together
    assert api.put(f"/api/tasks/{task.id}", as_=outsider, json={"resource_type": None, "resource_id": None}).status == 200
    assert api.put(f"/api/tasks/{task.id}", as_=outsider, json={"resource_id": mine.id}).status == 400
