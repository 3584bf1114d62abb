"""Task updates at once, against a real HTTP server on Postgres (the server and helpers of test_concurrency.py).

Moves under another task cannot together make a cycle (A under B and B under A, each checked before the other
committed); concurrent updates making the same status change record it, and tell the portal, once."""
from __future__ import annotations

import secrets

from tests.concurrency.test_concurrency import THREADS, _all_at_once, _call, _token
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def _user(db):
    from tests.factories import make_user

    return make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")


def test_moves_of_two_tasks_under_each_other_at_once_make_no_cycle(live):
    from chalicelib.areas.tasks.models import Task
    from tests.areas.tasks.factories import make_task

    base, sessions = live
    for _ in range(3):  # three rounds: a race that one round may miss
        with sessions() as db:
            user = _user(db)
            first, second = make_task(db, created_by=user.id), make_task(db, created_by=user.id)
            db.commit()
        token = _token(user)
        moves = [(first.id, second.id) if i % 2 else (second.id, first.id) for i in range(THREADS)]
        results = _all_at_once([(lambda task_id=task_id, parent_id=parent_id, token=token: _call(
            base, "PUT", f"/api/tasks/{task_id}", token, {"parent_task_id": parent_id}))
            for task_id, parent_id in moves])
        assert {status for status, _ in results} <= {200, 400}, results
        with sessions() as db:
            parents = {task.id: task.parent_task_id
                       for task in db.query(Task).filter(Task.id.in_([first.id, second.id]))}
        assert not (parents[first.id] == second.id and parents[second.id] == first.id), "a cycle"


def test_the_same_status_change_at_once_is_recorded_once(live):
    from sqlalchemy import func, select

    from chalicelib.core.models import HistoryEntry
    from tests.areas.tasks.factories import make_task, status

    base, sessions = live
    with sessions() as db:
        user = _user(db)
        todo, done = status(db, "todo"), status(db, "done")
        task = make_task(db, created_by=user.id, status_id=todo.id)
        db.commit()
    token = _token(user)
    results = _all_at_once([(lambda: _call(base, "PUT", f"/api/tasks/{task.id}", token, {"status_id": done.id}))
                            for _ in range(THREADS)])
    assert [status for status, _ in results] == [200] * THREADS, results
    with sessions() as db:
        changes = db.scalar(select(func.count()).select_from(HistoryEntry).where(
            HistoryEntry.entity_id == task.id, HistoryEntry.action == "status_changed"))
    assert changes == 1
