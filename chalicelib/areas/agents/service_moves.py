"""Stage moves of an agent task (document 1 and decisions.md section 9) and the runs they start.

| move           | from               | to        | effects                                                  |
| dispatch       | draft, rejected    | scoping   | a scoping run, sent to the project's runner after commit |
| approve        | pending_approval   | building  | a build run, sent to the runner after commit             |
| reject         | pending_approval   | rejected  | reason required (400)                                    |
| review-approve | review             | done      | gates browser_test_status and ci_status `passed`, or force |
| review-reject  | review             | building  | reason required; retry_count + 1; a build run carrying the reason |

A move from another stage is 409. Dispatch, approve and review-reject need the project's enabled agent
configuration (runner URL and secret), else 409 (RUNNER_MODE=off: 503), so that no run waits for a runner that
will never hear of it and no task waits in scoping or building for a run that was never started (review-reject
moved to building with no run before session 26). A run the runner took and never reports is given up on by the
job agents-stale-runs (jobs.py). Each move takes the task
row FOR KEY SHARE (its read), then locks the agent meta row (the order of the task's delete), writes a task history
event (`agent_stage_changed`) and notifies the task's assignee and reporter who may read the task
(`agent_task_stage_changed`, not the person who made the move); when the runner's report moves the task to
pending_approval or review and none of those told holds tasks:update (neither may read it, or they may only view
it), the user who dispatched the run is told too when they may read it and hold tasks:update (sessions 25, 26); a
run the runner reports failed (`agent_run_failed`, service_callback) is told to the readers among the assignee and
reporter, else the dispatcher when a reader, and the dispatcher also when none told holds tasks:update: that one
notice tells of the move back too (session 27, change_stage's `notify` False).
The runner is called only after the commit; a runner that cannot be reached marks the run failed and puts the task
back in the stage it left; so does the runner's report of a failed run (service_callback, session 26: scoping and
building have no move out of them).
"""
from __future__ import annotations

import logging

from sqlalchemy import select

from chalicelib.core import history
from chalicelib.core.errors import Conflict
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_row

from .models import AgentRun, AgentTask
from .queries import (agent_record, agent_task_records, load_agent_task, payload_config, project_config, project_of,
                      run_record)
from .service_config import runner_secret

log = logging.getLogger("wms.agents")

MOVES = {
    "dispatch": (("draft", "rejected"), "scoping"),
    "approve": (("pending_approval",), "building"),
    "reject": (("pending_approval",), "rejected"),
    "review-approve": (("review",), "done"),
    "review-reject": (("review",), "building"),
}
GATES = ("browser_test_status", "ci_status")
CALLBACK_PATH = "/api/webhooks/agent-callback"


def _locked(ctx, task_id: str, move: str):
    # one lock order with DELETE /api/tasks/:id: the task row first (FOR KEY SHARE, a clause of the read: the run
    # inserted below names the task), then the meta row, which the delete's cascade takes after the task row
    agent, task = load_agent_task(ctx, task_id, lock_task=True)
    # concurrent moves serialise; the second sees the first's stage
    agent = lock_row(ctx.db, AgentTask, agent.id, missing="Agent task")
    allowed, _to = MOVES[move]
    if agent.stage not in allowed:
        raise Conflict(f"Cannot {move.replace('-', ' ')} an agent task in stage {agent.stage} "
                       f"(allowed from {' or '.join(allowed)})")
    return agent, task


def notify_stage_change(ctx, task, old: str, new: str, *, actor_id: str | None,
                        fallback_id: str | None = None) -> None:
    """The task's assignee and reporter who may read it hear of the move (once each; not the actor), with the core's
    5-minute de-duplication per user, type and resource (document 3, Events and Limits). Who may read it is the tasks
    area's `task_readers` (active, `tasks:view`, the task in their scope; two statements at most, whatever the
    recipients): one who may not is told nothing, as the tasks area's `task_status_changed` (the notice names the task
    and could only lead to a 404). `fallback_id` (the runner's report to pending_approval or review: the user who
    dispatched the run) is told too when none of the assignee and reporter told holds `tasks:update` (approve,
    reject, review-approve and review-reject need it), and only when they may read the task, hold `tasks:update`
    themselves and are not the actor (session 25: a task whose people left no longer waits for a person unseen;
    session 26: nor one whose people may only view it); see notify_task_people."""
    notify_task_people(ctx, task, actor_id=actor_id, fallback_id=fallback_id, fallback_decides=True,
                       type="agent_task_stage_changed",
                       title=f"Agent task moved to {new.replace('_', ' ')}: {task.title}",
                       body=f"{task.title} moved from {old.replace('_', ' ')} to {new.replace('_', ' ')}.")


def notify_task_people(ctx, task, *, actor_id: str | None, fallback_id: str | None, type: str, title: str,
                       body: str, fallback_decides: bool = False, fallback_reads: bool | None = None) -> None:
    """The audience of a notice about the task: its assignee and reporter who may read it (not the actor), and
    `fallback_id` (not the actor, a reader):
    - `fallback_reads` (default: not `fallback_decides`; session 25) when none of the assignee and reporter may read
      the task;
    - `fallback_decides` (the task waits for a decision, tasks:update) when none of those told holds `tasks:update`,
      and only when the fallback holds it (session 26); one statement more (core.permissions.holders_select over the
      readers), whatever the recipients, unless `fallback_reads` already added the fallback.
    The runner's moves to pending_approval and review: `fallback_decides` alone; a failed run's notice (the task back
    where a person decides again, session 27): both."""
    if fallback_reads is None:
        fallback_reads = not fallback_decides
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    from chalicelib.areas.tasks import service as tasks_service  # another area: imported lazily

    people = [uid for uid in dict.fromkeys((task.assignee_id, task.reporter_id)) if uid and uid != actor_id]
    fallback = fallback_id if fallback_id and fallback_id != actor_id and fallback_id not in people else None
    asked = people + ([fallback] if fallback else [])
    readers = tasks_service.task_readers(ctx.db, task.id, asked) if asked else set()
    recipients = [user_id for user_id in people if user_id in readers]
    if fallback in readers:
        if fallback_reads and not recipients:
            recipients = [fallback]
        elif fallback_decides:
            deciders = _task_deciders(ctx.db, recipients + [fallback])
            if fallback in deciders and deciders.isdisjoint(recipients):
                recipients.append(fallback)
    notify_many(ctx, [{"user_id": user_id, "type": type, "title": title, "body": body,
                       "resource_type": "task", "resource_id": task.id, "action_url": f"/tasks/{task.id}",
                       "actor_id": actor_id} for user_id in recipients])


def notify_run_failed(ctx, task, run, back: str) -> None:
    """A failed run put the task back in `back`, where a person dispatches, approves or decides again: one notice,
    `agent_run_failed` naming the stage the task is back in (session 27: the move back's `agent_task_stage_changed`
    is no longer sent besides it). Its audience is both notices' of before: the assignee and reporter who may read the
    task; the dispatcher when a reader and none of them may read it (session 25), or when the dispatcher holds
    `tasks:update` and none of those told does (the stage notice's fallback, session 26)."""
    notify_task_people(ctx, task, actor_id=None, fallback_id=run.created_by, type="agent_run_failed",
                       fallback_decides=True, fallback_reads=True,
                       title=f"Agent run failed: {task.title}",
                       body=f"The {run.stage} run of {task.title} failed; the task is back in {back.replace('_', ' ')}.")


def _task_deciders(db, user_ids: list[str]) -> set[str]:
    """Which of these users (readers of the task: active, the task in their scope) hold `tasks:update`, the
    permission of every decision on an agent task (approve, reject, review-approve, review-reject); one statement."""
    from chalicelib.core.models import User
    from chalicelib.core.permissions import holders_select

    return set(db.scalars(holders_select("tasks", "update").where(User.id.in_(user_ids), User.is_active.is_(True))))


def change_stage(ctx, agent: AgentTask, task, new: str, *, actor_id: str | None, fallback_id: str | None = None,
                 notify: bool = True, **details) -> None:
    """Set the stage; history event and notifications (`fallback_id`: see notify_stage_change). `notify` False: no
    stage notice (a failed run's move back, whose `agent_run_failed` says where the task is; session 27)."""
    old = agent.stage
    agent.stage = new
    agent.updated_at = utcnow()
    ctx.db.flush()
    changes = {"stage": {"from": old, "to": new}, **{k: v for k, v in details.items() if v is not None}}
    history.record(ctx.db, entity_type="task", entity_id=task.id, action="agent_stage_changed", actor_id=actor_id,
                   changes=changes)
    if notify:
        notify_stage_change(ctx, task, old, new, actor_id=actor_id, fallback_id=fallback_id)


def _runner_target(ctx, task):
    """(project id, configuration, secret) of the task's project runner. A task outside a project, a project
    without an enabled configuration, or an unreadable secret is 409, and RUNNER_MODE=off is 503, before
    anything is written (every move that starts a run: dispatch, approve, review-reject)."""
    from chalicelib.providers.runner import get_runner

    project_id = project_of(task)
    config = project_config(ctx.db, project_id) if project_id else None
    problem = None
    if project_id is None:
        problem = "The task is not linked to a project, so no runner can take it (link it to a project first)"
    elif config is None or not config.enabled or not config.runner_url:
        problem = ("The task's project has no enabled agent configuration with a runner_url "
                   f"(PUT /api/projects/{project_id}/agent-config)")
    secret = runner_secret(config) if problem is None else None
    if problem is None and not secret:
        problem = "The project's runner secret is not set or cannot be read: set it again in the agent configuration"
    if problem is not None:
        raise Conflict(problem)
    get_runner()  # RUNNER_MODE=off: 503
    return project_id, config, secret


def _start_run(ctx, agent: AgentTask, task, target, *, stage: str, previous_stage: str,
               feedback: str | None = None) -> AgentRun:
    """A run record, and the runner asked for it once the transaction has committed."""
    from chalicelib.core.settings import get_settings

    project_id, config, secret = target
    if stage == "building":  # a new build: the proof of work of an earlier one no longer counts
        agent.browser_test_status = agent.ci_status = None
    run = AgentRun(task_id=task.id, project_id=project_id, stage=stage, status="queued", tokens=0, cost=0,
                   feedback=feedback, created_by=ctx.user_id)
    ctx.db.add(run)
    ctx.db.flush()
    task_record = agent_task_records(ctx.db, [(agent, task)], with_agent=False)[0]
    payload = {"run_id": run.id, "task_id": task.id, "project_id": project_id, "stage": stage,
               "task": task_record, "agent": agent_record(agent), "config": payload_config(config),
               "feedback": feedback, "retry_count": agent.retry_count,
               "callback_url": get_settings().public_base_url.rstrip("/") + CALLBACK_PATH}
    runner_url = config.runner_url
    run_id = run.id
    ctx.after_commit(lambda: send_run(run_id, runner_url, secret, payload, previous_stage))
    return run


def send_run(run_id: str, runner_url: str, secret: str, payload: dict, previous_stage: str) -> None:
    """After commit: ask the runner. Accepted: the run is `running`. Refused or unreachable: the run is `failed`
    with the reason (visible in the detail) and the task goes back to the stage it left, so it can be retried, told
    by `agent_run_failed` (`notify_run_failed`, as a failed report is)."""
    from chalicelib.core.context import job_context
    from chalicelib.providers.runner import RunnerUnreachable, get_runner

    error = None
    try:
        get_runner().start_run(runner_url=runner_url, secret=secret, payload=payload)
    except RunnerUnreachable as exc:
        error = str(exc)
    except Exception as exc:  # noqa: BLE001 - whatever failed, the run must not be left queued
        log.exception("the runner call failed", extra={"run_id": run_id})
        error = f"the runner call failed ({type(exc).__name__})"
    with job_context() as ctx:
        task_id = ctx.db.scalar(select(AgentRun.task_id).where(AgentRun.id == run_id))
        # the same lock order as the moves and the callback: the agent meta row, then the run
        agent = ctx.db.scalar(select(AgentTask).where(AgentTask.task_id == task_id).with_for_update()) if task_id else None
        run = lock_row(ctx.db, AgentRun, run_id)
        if run is None or run.status != "queued":  # deleted, or the runner already reported
            return
        now = utcnow()
        if error is None:
            run.status, run.started_at, run.last_report_at = "running", now, now
            return
        log.warning("the runner did not take the run", extra={"run_id": run_id, "reason": error})
        run.status, run.error, run.finished_at = "failed", error, now
        if agent is not None and agent.stage == run.stage:
            from .queries import task_model

            task = ctx.db.get(task_model(), run.task_id)
            # one notice, as a run the runner reported failed (session 27): the stage notice of the move back went
            # to the assignee and reporter only, and notify's de-duplication swallowed it after the dispatch's own
            change_stage(ctx, agent, task, previous_stage, actor_id=None, run_id=run.id, reason=error, notify=False)
            notify_run_failed(ctx, task, run, previous_stage)


def _answer(ctx, agent, task, run=None) -> dict:
    return {"task": agent_task_records(ctx.db, [(agent, task)])[0], "run": run_record(run) if run else None}


def dispatch(ctx, *, task_id: str) -> dict:
    agent, task = _locked(ctx, task_id, "dispatch")
    target = _runner_target(ctx, task)
    previous = agent.stage
    change_stage(ctx, agent, task, "scoping", actor_id=ctx.user_id)
    run = _start_run(ctx, agent, task, target, stage="scoping", previous_stage=previous)
    return _answer(ctx, agent, task, run)


def approve(ctx, *, task_id: str) -> dict:
    agent, task = _locked(ctx, task_id, "approve")
    target = _runner_target(ctx, task)
    # the approval is the task's (document 1, Task: approved_by_user_id, approved_at; session 31: approve left them
    # empty, so the task named no approver); a later approval, after a rejection and a new scoping, names its own.
    # The task row is held FOR KEY SHARE, which the UPDATE's lock does not wait for: two approves still take turns
    # on the meta row (`_locked`), never deadlock on the task's
    task.approved_by_user_id, task.approved_at = ctx.user_id, utcnow()
    task.updated_at = task.approved_at
    change_stage(ctx, agent, task, "building", actor_id=ctx.user_id)
    run = _start_run(ctx, agent, task, target, stage="building", previous_stage="pending_approval")
    return _answer(ctx, agent, task, run)


def reject(ctx, *, task_id: str, reason: str) -> dict:
    agent, task = _locked(ctx, task_id, "reject")
    change_stage(ctx, agent, task, "rejected", actor_id=ctx.user_id, reason=reason)
    return _answer(ctx, agent, task)


def review_approve(ctx, *, task_id: str, force: bool) -> dict:
    agent, task = _locked(ctx, task_id, "review-approve")
    failing = [name for name in GATES if getattr(agent, name) != "passed"]
    if failing and not force:
        raise Conflict("The proof-of-work gates have not passed (send force: true to override)",
                       details=[{"field": name, "message": f"is {getattr(agent, name) or 'not reported'}, not passed"}
                                for name in failing])
    change_stage(ctx, agent, task, "done", actor_id=ctx.user_id, forced=True if failing else None,
                 gates={name: getattr(agent, name) for name in GATES})
    return _answer(ctx, agent, task)


def review_reject(ctx, *, task_id: str, reason: str) -> dict:
    agent, task = _locked(ctx, task_id, "review-reject")
    # the runner is required as for approve (session 26): a move to building with no run left the task there for
    # good, since only a report of its latest build run moves it out
    target = _runner_target(ctx, task)
    agent.retry_count = (agent.retry_count or 0) + 1
    change_stage(ctx, agent, task, "building", actor_id=ctx.user_id, reason=reason, retry_count=agent.retry_count)
    run = _start_run(ctx, agent, task, target, stage="building", previous_stage="review", feedback=reason)
    return _answer(ctx, agent, task, run)
