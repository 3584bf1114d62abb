"""A closed sprint's contents are fixed (session 31, invariants audit): no task goes into a closed sprint, by a task
create, a task update or a duplicate; a task may still leave it, and its tasks are still read and edited."""
from sqlalchemy import select

from chalicelib.areas.sprints.models import Sprint
from chalicelib.areas.tasks.models import Task
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task


def _sprint(db, project, status, name="Sprint"):
    made = Sprint(project_id=project.id, name=name, status=status)
    db.add(made)
    db.flush()
    return made


def test_a_task_is_not_created_in_a_closed_sprint(api, db, exec_user):
    project = make_project(db)
    closed = _sprint(db, project, "closed")
    response = api.post("/api/tasks", as_=exec_user, json={"title": "Late add", "sprint_id": closed.id})
    assert response.status == 409, response
    assert response.json["error"] == "Sprint is closed"
    assert db.scalar(select(Task.id).where(Task.sprint_id == closed.id)) is None
    # planned and active sprints take new tasks
    for status in ("planned", "active"):
        open_sprint = _sprint(db, project, status)
        made = api.post("/api/tasks", as_=exec_user, json={"title": "Planned", "sprint_id": open_sprint.id})
        assert made.status == 201 and made.json["task"]["sprint_id"] == open_sprint.id


def test_a_task_is_not_moved_into_a_closed_sprint(api, db, exec_user):
    project = make_project(db)
    closed = _sprint(db, project, "closed")
    task = make_task(db, created_by=exec_user.id)
    response = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"sprint_id": closed.id})
    assert response.status == 409, response
    assert response.json["error"] == "Sprint is closed"
    db.expire_all()
    assert db.get(Task, task.id).sprint_id is None


def test_a_task_leaves_a_closed_sprint_and_is_still_read_and_edited(api, db, exec_user):
    project = make_project(db)
    sprint = _sprint(db, project, "active")
    kept = make_task(db, created_by=exec_user.id, sprint_id=sprint.id)
    carried = make_task(db, created_by=exec_user.id, sprint_id=sprint.id)
    closing = api.put(f"/api/sprints/{sprint.id}", as_=exec_user, json={"status": "closed"})
    assert closing.status == 200, closing
    # read, edited, and sent back whole with the sprint it names
    read = api.get(f"/api/tasks/{kept.id}", as_=exec_user)
    assert read.status == 200 and read.json["task"]["sprint_id"] == sprint.id
    edited = api.put(f"/api/tasks/{kept.id}", as_=exec_user, json={"title": "Renamed", "sprint_id": sprint.id})
    assert edited.status == 200, edited
    assert edited.json["task"]["sprint_id"] == sprint.id
    # unfinished work carried over to the next sprint, or back to the backlog
    following = _sprint(db, project, "planned", "Next")
    moved = api.put(f"/api/tasks/{carried.id}", as_=exec_user, json={"sprint_id": following.id})
    assert moved.status == 200 and moved.json["task"]["sprint_id"] == following.id
    back = api.put(f"/api/tasks/{kept.id}", as_=exec_user, json={"sprint_id": None})
    assert back.status == 200 and back.json["task"]["sprint_id"] is None


def test_a_duplicate_of_a_task_in_a_closed_sprint_is_left_out_of_it(api, db, exec_user):
    project = make_project(db)
    closed = _sprint(db, project, "closed")
    original = make_task(db, created_by=exec_user.id, sprint_id=closed.id)
    copy = api.post(f"/api/tasks/{original.id}/duplicate", as_=exec_user)
    assert copy.status == 201, copy
    assert copy.json["task"]["sprint_id"] is None
    active = _sprint(db, project, "active")
    planned = make_task(db, created_by=exec_user.id, sprint_id=active.id)
    assert api.post(f"/api/tasks/{planned.id}/duplicate", as_=exec_user).json["task"]["sprint_id"] == active.id
