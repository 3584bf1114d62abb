"""Subtasks list and create; watch and unwatch."""
from datetime import datetime, timezone

from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.tasks.factories import make_task, priority, status
from tests.factories import grant, make_user


def test_subtasks_sorted_by_sort_order_then_created_at(api, db, exec_user):
    parent = make_task(db)
    base = datetime(2026, 1, 1, tzinfo=timezone.utc)
    make_task(db, title="no order new", parent_task_id=parent.id, created_at=base.replace(day=3))
    make_task(db, title="no order old", parent_task_id=parent.id, created_at=base.replace(day=2))
    make_task(db, title="order 2", parent_task_id=parent.id, sort_order=2)
    make_task(db, title="order 1", parent_task_id=parent.id, sort_order=1, status_id=status(db, "done").id,
              priority_id=priority(db, "high").id)
    make_task(db, title="elsewhere")
    response = api.get(f"/api/tasks/{parent.id}/subtasks", as_=exec_user)
    assert response.status == 200
    subtasks = response.json["subtasks"]
    assert [s["title"] for s in subtasks] == ["order 1", "order 2", "no order old", "no order new"]
    assert subtasks[0]["status_value"] == "done" and subtasks[0]["priority_label"] == priority(db, "high").label


def test_subtasks_of_missing_task_is_404(api, exec_user):
    assert api.get("/api/tasks/missing/subtasks", as_=exec_user).status == 404
    assert api.post("/api/tasks/missing/subtasks", as_=exec_user, json={"title": "x"}).status == 404


def test_create_subtask(api, db, exec_user):
    bob = make_user(db)
    parent = make_task(db)
    response = api.post(f"/api/tasks/{parent.id}/subtasks", as_=exec_user,
                        json={"title": "child", "assignee_id": bob.id, "due_date": "2026-05-05"})
    assert response.status == 201
    task = response.json["task"]
    assert task["parent_task_id"] == parent.id and task["title"] == "child"
    assert task["assignee_id"] == bob.id and task["due_date"] == "2026-05-05"
    assert task["status_id"] == status(db, "todo").id and task["reporter_id"] == exec_user.id
    assert api.get(f"/api/tasks/{parent.id}", as_=exec_user).json["task"]["subtask_count"] == 1
    sent = db.scalars(select(Notification).where(Notification.user_id == bob.id)).all()
    assert [n.type for n in sent] == ["task_assigned"]
    history = api.get(f"/api/tasks/{task['id']}/history", as_=exec_user).json["history"]
    assert [h["action"] for h in history] == ["created"]


def test_create_subtask_with_empty_title_is_400(api, db, exec_user):
    parent = make_task(db)
    for body in ({}, {"title": ""}, {"title": "  "}):
        assert api.post(f"/api/tasks/{parent.id}/subtasks", as_=exec_user, json=body).status == 400
    bad = api.post(f"/api/tasks/{parent.id}/subtasks", as_=exec_user, json={"title": "x", "assignee_id": "ghost"})
    assert bad.status == 400


def test_create_subtask_needs_update(api, db):
    viewer = make_user(db)
    grant(db, viewer, "tasks", "view")
    parent = make_task(db, created_by=viewer.id)
    assert api.post(f"/api/tasks/{parent.id}/subtasks", as_=viewer, json={"title": "x"}).status == 403


def test_watch_and_unwatch_are_idempotent(api, db, employee):
    task = make_task(db, assignee_id=employee.id)
    for _ in range(2):
        response = api.post(f"/api/tasks/{task.id}/watch", as_=employee)
        assert response.status == 200 and response.json == {"watching": True}
    watchers = api.get(f"/api/tasks/{task.id}", as_=employee).json["watchers"]
    assert [w["id"] for w in watchers] == [employee.id]
    for _ in range(2):
        response = api.delete(f"/api/tasks/{task.id}/watch", as_=employee)
        assert response.status == 200 and response.json == {"watching": False}
    assert api.get(f"/api/tasks/{task.id}", as_=employee).json["watchers"] == []


def test_watch_needs_only_view(api, db):
    viewer = make_user(db)
    grant(db, viewer, "tasks", "view")
    task = make_task(db, created_by=viewer.id)
    assert api.post(f"/api/tasks/{task.id}/watch", as_=viewer).status == 200
    assert api.delete(f"/api/tasks/{task.id}/watch", as_=viewer).status == 200


def test_watch_missing_task_is_404(api, exec_user):
    assert api.post("/api/tasks/missing/watch", as_=exec_user).status == 404
    assert api.delete("/api/tasks/missing/watch", as_=exec_user).status == 404
