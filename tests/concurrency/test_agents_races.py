"""An agent task's move or edit while another transaction deletes the task, against a real HTTP server on Postgres
(the server and helpers of test_concurrency.py; deterministic: the other transaction holds the agent meta row, gone
with its task, while the request runs). The request waits on the row lock and, finding the task gone, answers 404
and writes nothing (it answered 500: the lock's re-read found no row and the move read its stage)."""
from __future__ import annotations


from sqlalchemy import delete

from tests.concurrency.test_concurrency import _call, _token, executive, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_a_move_or_edit_that_waited_for_the_task_delete_answers_404(live):
    from chalicelib.areas.tasks.models import Task
    from tests.areas.agents.factories import make_agent_task

    base, sessions = live
    user = executive(sessions)
    token = _token(user)
    for path, method, body in (("/reject", "POST", {"reason": "Not now"}),
                               ("", "PATCH", {"effort_estimate": "2 days"})):
        with sessions() as db:
            task, _agent = make_agent_task(db, stage="pending_approval", owner=user)
            db.commit()
        # another request deleting the task (and its agent meta), until it commits
        status, body = while_held(sessions, delete(Task).where(Task.id == task.id),
                                  lambda: _call(base, method, f"/api/agent-tasks/{task.id}{path}", token, body))
        assert status == 404, (path, body)
