"""Runs the runner took and never reported (session 26): the stale-runs job (jobs.stale_runs) gives them up.

A run is `queued` until the runner takes it (send_run, after the commit of the move) and `running` until the runner
reports it ended (an interim status the runner reports keeps it `running`, and a late `queued` never moves it back:
service_callback._run_status, session 27, so every run not ended is in this job's reach); only the runner's report
moves the task out of scoping or building, and no move of the API leaves either.
A runner that took the run and died, or a function stopped between the move's commit and its runner call, left the
task there for good. The task's latest run of the stage the task is still in, `queued` or `running` and not heard
of for more than `minutes` (its `last_report_at`: created, taken by the runner, or its last report, a repeated
`running` report included; session 27, before which a run working longer than `minutes` was given up while its runner
still reported) is marked `failed` ("the runner did not report in N minutes") and the task put back as a runner's
`failed` report does (service_callback.put_back: the stage the run's start left, history, `agent_run_failed`). A run
already failed, finished, superseded by a newer run of its stage or whose task moved on is not touched, so a second
run of the job changes nothing. A late report of a run given up on changes neither the run nor the task
(service_callback: an ended run is not reopened, session 27).
"""
from __future__ import annotations

from datetime import timedelta
from functools import cache

from sqlalchemy import exists, select, tuple_
from sqlalchemy.orm import aliased

from chalicelib.core.ids import utcnow

from .models import AgentRun, AgentTask
from .queries import task_model
from .service_callback import WAITING, put_back


@cache
def _newer():
    """The alias of a newer run of the same task and stage (built once per process)."""
    return aliased(AgentRun, name="newer_run")


def _stale(cutoff, *, after=None):
    """The runs to give up: waiting, last heard of before `cutoff`, the task's latest run of its stage, the task still
    in that stage (no newer run of the same task and stage, in the order of service_callback._latest_run_of_stage)."""
    newer = _newer()
    query = (select(AgentRun.id, AgentRun.created_at)
             .join(AgentTask, AgentTask.task_id == AgentRun.task_id)
             .where(AgentRun.status.in_(WAITING), AgentRun.last_report_at < cutoff, AgentTask.stage == AgentRun.stage,
                    ~exists().where(newer.task_id == AgentRun.task_id, newer.stage == AgentRun.stage,
                                    tuple_(newer.created_at, newer.id) > tuple_(AgentRun.created_at, AgentRun.id))))
    if after is not None:
        query = query.where(tuple_(AgentRun.created_at, AgentRun.id) > tuple_(*after))
    return query


def give_up_stale_runs(ctx, *, minutes: int, limit: int, after=None) -> tuple[int, int, tuple | None]:
    """One batch: at most `limit` stale runs read (one statement), after the keyset `after` ((created_at, id) of the
    previous batch's last). Their agent meta rows are locked (the order of the moves, send_run and the callback:
    the meta row, then the run), the runs read again under those locks (a report or a move may have come
    meanwhile: only those still stale are given up), each marked failed and its task put back. Answers (runs read,
    runs given up, the keyset of the next batch)."""
    now = utcnow()
    cutoff = now - timedelta(minutes=minutes)
    found = ctx.db.execute(_stale(cutoff, after=after).order_by(AgentRun.created_at, AgentRun.id)
                           .limit(limit)).all()
    if not found:
        return 0, 0, after
    ids = [row.id for row in found]
    agents = {agent.task_id: agent for agent in ctx.db.scalars(
        select(AgentTask).join(AgentRun, AgentRun.task_id == AgentTask.task_id).where(AgentRun.id.in_(ids))
        .order_by(AgentTask.id).with_for_update(of=AgentTask))}
    # again under the meta rows' locks: nothing now changes a run's status or its task's stage but this transaction
    runs = ctx.db.scalars(select(AgentRun).where(AgentRun.id.in_(
        _stale(cutoff).where(AgentRun.id.in_(ids)).with_only_columns(AgentRun.id).scalar_subquery()))
        .order_by(AgentRun.created_at, AgentRun.id).with_for_update()).all()
    Task = task_model()
    tasks = {task.id: task for task in ctx.db.scalars(select(Task).where(Task.id.in_([r.task_id for r in runs])))}
    error = f"the runner did not report in {minutes} minutes"
    given_up = 0
    for run in runs:
        agent, task = agents.get(run.task_id), tasks.get(run.task_id)
        if agent is None or task is None:  # deleted meanwhile
            continue
        run.status, run.error, run.finished_at = "failed", error, now
        put_back(ctx, agent, task, run)
        given_up += 1
    last = found[-1]
    return len(found), given_up, (last.created_at, last.id)
