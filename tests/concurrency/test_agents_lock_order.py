"""An agent task's stage move and the task's delete take the same two rows in one order: the task row, then the
agent meta row (docs/decisions/agents.md, "Concurrency").

DELETE /api/tasks/:id locks the task row and its ON DELETE CASCADE then deletes the meta row. A move used to lock
the meta row first and then insert its run, whose foreign key takes the task row FOR KEY SHARE: raced by the delete,
each held the row the other needed next and Postgres aborted one with a deadlock (40P01, a 500; audit 9). A move
now takes the task row FOR KEY SHARE in its first read, then the meta row:
- the delete first: the move waits for it and answers 404, as after the delete, and writes nothing;
- the move first: the delete waits for the move (its transaction ends: rolled back here, leaving no committed run),
  then goes on; both succeed.
A 409 on either side would not do: each test asserts both outcomes and the rows left.
"""
import os
import secrets
import threading
import time

import pytest
from sqlalchemy import func, insert, select, text

from chalicelib.areas.agents.models import AgentRun, AgentTask, ProjectAgentConfig
from chalicelib.areas.projects.models import Project
from chalicelib.areas.tasks.models import Task
from chalicelib.core import crypto
from chalicelib.core.models import ConfigList, ConfigListItem, User
from tests.concurrency.conftest import committed_rows, own_unit_of_work, paused_in_thread

pytestmark = pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite",
                                reason="row locks between two connections need Postgres")

SECRET = "runner-secret-" + "s" * 24
MOVES = [("draft", "dispatch", None), ("pending_approval", "approve", None),
         ("review", "review-reject", {"reason": "The button is off"})]
MOVED_TO = {"dispatch": "scoping", "approve": "building", "review-reject": "building"}


def _forget(conn, row) -> None:
    from sqlalchemy import delete

    exec_id, project_id, task_id = row
    conn.execute(delete(Task).where(Task.id == task_id))  # its meta row and runs by cascade
    conn.execute(delete(ProjectAgentConfig).where(ProjectAgentConfig.project_id == project_id))
    conn.execute(delete(Project).where(Project.id == project_id))
    conn.execute(delete(User).where(User.id == exec_id))


@pytest.fixture(scope="module")
def made(engine):
    """The committed rows of this module's tests (`committed_rows`)."""
    yield from committed_rows(engine, _forget)


def _committed_agent_task(engine, made, stage: str) -> tuple[str, str]:
    """(executive id, agent task id) in a project with an enabled runner, committed by another connection."""
    with engine.connect() as other:
        exec_id = other.execute(insert(User).values(email=f"order-{secrets.token_hex(4)}@agency.test", name="Mover",
                                                    access_level="executive", is_active=True)
                                .returning(User.id)).scalar_one()
        kind = other.execute(select(ConfigListItem.id).join(ConfigList, ConfigList.id == ConfigListItem.list_id)
                             .where(ConfigList.key == "task_type", ConfigListItem.value == "agent_task")).scalar_one()
        project_id = other.execute(insert(Project).values(name="Raced", status="active")
                                   .returning(Project.id)).scalar_one()
        other.execute(insert(ProjectAgentConfig).values(
            project_id=project_id, project_type="web", runner_url="https://runner.example.com/runs", enabled=True,
            runner_secret_encrypted=crypto.encrypt(SECRET)))
        task_id = other.execute(insert(Task).values(title="Raced", is_private=False, resource_type="project",
                                                    resource_id=project_id, type_id=kind)
                                .returning(Task.id)).scalar_one()
        other.execute(insert(AgentTask).values(task_id=task_id, stage=stage, retry_count=0))
        other.commit()
    made.append((exec_id, project_id, task_id))
    return exec_id, task_id


def _rows_left(db, task_id) -> tuple[int, int, int]:
    """(tasks, agent meta rows, runs) of the task the test's transaction sees."""
    return (db.scalar(select(func.count()).select_from(Task).where(Task.id == task_id)),
            db.scalar(select(func.count()).select_from(AgentTask).where(AgentTask.task_id == task_id)),
            db.scalar(select(func.count()).select_from(AgentRun).where(AgentRun.task_id == task_id)))


def _call_move(api, user, task_id, move, body):
    path = f"/api/agent-tasks/{task_id}/{move}"
    return api.post(path, as_=user, json=body) if body else api.post(path, as_=user)


@pytest.mark.parametrize("stage, move, body", MOVES)
def test_a_move_that_waited_for_the_task_delete_answers_404(api, db, engine, made, exec_user, stage, move, body):
    _, task_id = _committed_agent_task(engine, made, stage)
    locker = engine.connect()
    transaction = locker.begin()
    # DELETE /api/tasks/:id, first: its DELETE locks the task row before the cascade reaches the meta row
    locker.execute(text("SELECT id FROM tasks WHERE id = :id FOR UPDATE"), {"id": task_id})
    answers = []
    worker = threading.Thread(target=lambda: answers.append(_call_move(api, exec_user, task_id, move, body)))
    worker.start()
    time.sleep(0.3)  # the move waits for the task row (before it takes the meta row)
    locker.execute(text("DELETE FROM tasks WHERE id = :id"), {"id": task_id})  # ... then the cascade to the meta row
    transaction.commit()  # a deadlock would raise here or answer the move 500 (409 with core.http's safety net)
    locker.close()
    worker.join(30)
    assert answers, "the move did not finish"
    assert answers[0].status == 404, answers[0]
    assert answers[0].json["error"] == "Agent task not found", answers[0].json
    assert _rows_left(db, task_id) == (0, 0, 0)


@pytest.mark.parametrize("stage, move, body", MOVES)
def test_a_task_delete_that_waited_for_a_move_goes_on_after_it(api, db, engine, made, monkeypatch, exec_user,
                                                               stage, move, body):
    from chalicelib.areas.agents import service_moves
    from chalicelib.core.auth import principals_of
    from chalicelib.core.context import Context

    mover_id, task_id = _committed_agent_task(engine, made, stage)
    outcomes = []
    # the move holds its rows (the task's key share, the meta row) by then
    gate, holder = paused_in_thread(monkeypatch, service_moves, "change_stage")

    def run_move():
        holder.add(threading.get_ident())
        uow = own_unit_of_work(engine)
        try:
            ctx = Context(uow=uow, principal=principals_of(uow.session, [mover_id])[mover_id])
            function = getattr(service_moves, move.replace("-", "_"))
            function(ctx, task_id=task_id, **({"reason": body["reason"]} if body else {}))
            stage = uow.session.scalar(select(AgentTask.stage).where(AgentTask.task_id == task_id))
            runs = uow.session.scalar(select(func.count()).select_from(AgentRun).where(AgentRun.task_id == task_id))
            outcomes.append((stage, runs))  # the move's work, done while the delete waited
        except Exception as exc:  # noqa: BLE001 - the test reports what it got
            outcomes.append(exc)
        finally:
            uow.session.rollback()  # the end of the move's transaction, leaving the database as it was (the runner
            uow.session.close()     # is not called: the unit of work's after-commit callbacks are not run)

    mover = threading.Thread(target=run_move)
    mover.start()
    time.sleep(0.3)  # the move holds its rows and waits at its pause
    answers = []
    deleter = threading.Thread(target=lambda: answers.append(api.delete(f"/api/tasks/{task_id}", as_=exec_user)))
    deleter.start()
    time.sleep(0.3)  # the delete waits for the move
    gate.set()
    mover.join(30)
    deleter.join(30)
    assert answers and outcomes, "a side did not finish"
    assert (answers[0].status, outcomes) == (200, [(MOVED_TO[move], 1)]), (answers[0], outcomes)
    assert _rows_left(db, task_id) == (0, 0, 0)  # the delete (the test's transaction) took them all
