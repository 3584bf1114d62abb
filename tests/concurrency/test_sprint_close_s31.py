"""A task put into a sprint while the sprint is being closed (session 31, invariants audit), against a real HTTP server
on Postgres (the server and helpers of test_concurrency.py).

The tasks area reads the sprint's status in the statement that share-locks it (sprints' `visible_sprint_status`, FOR
KEY SHARE) and a close locks the sprint's row FOR UPDATE (`update_sprint`): a task create or move naming the sprint
waits for a close in progress and then reads `closed` (409), never putting the task into the sprint just closed."""
from __future__ import annotations

from sqlalchemy import select, text

from tests.concurrency.test_concurrency import _call, _make, _token, executive, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def _sprint(db):
    from chalicelib.areas.sprints.models import Sprint
    from tests.areas.projects.factories import make_project

    made = Sprint(project_id=make_project(db).id, name="S", status="active")
    db.add(made)
    db.flush()
    return made


def _closing(sprint_id: str):
    return [text("SELECT id FROM sprints WHERE id = :id FOR UPDATE").bindparams(id=sprint_id),
            text("UPDATE sprints SET status = 'closed' WHERE id = :id").bindparams(id=sprint_id)]


def _in_sprint(sessions, sprint_id: str) -> list[str]:
    from chalicelib.areas.tasks.models import Task

    with sessions() as db:
        return list(db.scalars(select(Task.title).where(Task.sprint_id == sprint_id)))


def test_a_task_created_while_its_sprint_is_closed_waits_and_is_refused(live):
    base, sessions = live
    user = executive(sessions)
    [sprint] = _make(sessions, _sprint)
    status, body = while_held(sessions, _closing(sprint.id), lambda: _call(
        base, "POST", "/api/tasks", _token(user), {"title": "late", "sprint_id": sprint.id}))
    assert status == 409, (status, body)
    assert body["error"] == "Sprint is closed"
    assert _in_sprint(sessions, sprint.id) == []


def test_a_task_moved_while_its_sprint_is_closed_waits_and_is_refused(live):
    from tests.areas.tasks.factories import make_task

    base, sessions = live
    user = executive(sessions)
    [sprint] = _make(sessions, _sprint)
    [task] = _make(sessions, lambda db: make_task(db, title="moved", created_by=user.id))
    status, body = while_held(sessions, _closing(sprint.id), lambda: _call(
        base, "PUT", f"/api/tasks/{task.id}", _token(user), {"sprint_id": sprint.id}))
    assert status == 409, (status, body)
    assert _in_sprint(sessions, sprint.id) == []
