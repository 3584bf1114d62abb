"""Agent tasks: list, detail, the three editable fields, stats; functions the tasks area calls.

Stage moves live in service_moves.py, the runner callback in service_callback.py, project agent
configuration in service_config.py. An agent task is seen with its task (tasks' scope clause).
"""
from __future__ import annotations

from dataclasses import replace

from sqlalchemy import bindparam, func, select

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_row
from chalicelib.core.query import Page, Read, record_page, template

from .models import APPROVED_STAGES, STAGES, AgentRun, AgentTask
from .queries import (TASK_FLAGS, agent_record as _agent_record, agent_task_list_select, agent_task_lookups,
                      agent_task_records, is_agent_type, load_agent_task, recent_runs, task_model, visible,
                      with_agent_task_lookups)

EDITABLE = ("effort_estimate", "scope_document", "agent_confidence_note")


# --- for the tasks area -----------------------------------------------------------------------------

@template
def _agent_template():
    return select(AgentTask).where(AgentTask.task_id == bindparam("agent_task_id"))


def agent_select(task_id: str) -> Read:
    """The read of the task's agent meta record (its columns, as `queries.agent_record` answers them; built once per
    process), for a read that sends it with others (core.query.record_sets): the tasks detail's `agent`."""
    return Read(_agent_template(), {"agent_task_id": task_id})


def ensure_agent_meta(db, task_id: str) -> None:
    """A task of type `agent_task` gets its meta record, starting in `draft` (decisions.md section 9); once."""
    if db.scalar(select(AgentTask.id).where(AgentTask.task_id == task_id)) is None:
        db.add(AgentTask(task_id=task_id, stage="draft", retry_count=0))
        db.flush()


UNSTAR_SOURCES = ("chat", "mail")


def unstar_at_source(ctx, *, action_item_id: str, source_module: str, source_type: str | None = None,
                     source_id: str | None = None) -> bool:
    """Called by the action items area when an item is completed: an item from chat or mail is unstarred at
    its source by the actions agent, after commit (a failure is recorded on the item's history, not raised).
    Answers whether the agent is asked."""
    from .service_proxy import unstar_after_commit

    if source_module not in UNSTAR_SOURCES:
        return False
    unstar_after_commit(ctx, action_item_id=action_item_id, source_module=source_module, source_type=source_type,
                        source_id=source_id)
    return True


# --- reads ------------------------------------------------------------------------------------------

def parse_stages(value: str | None) -> list[str]:
    """The comma-separated stage filter: each must be a stage (400 naming `stage` otherwise)."""
    stages = [part.strip() for part in (value or "").split(",") if part.strip()]
    unknown = [stage for stage in stages if stage not in STAGES]
    if unknown:
        raise BadRequest("Unknown stage", details=[{"field": "stage", "message": f"{', '.join(unknown)}: not one of "
                                                                                  f"{', '.join(STAGES)}"}])
    return stages


def _filtered(stmt, project_id: str | None):
    Task = task_model()
    if project_id:
        stmt = stmt.where(Task.resource_type == "project", Task.resource_id == project_id)
    return stmt


def list_agent_tasks(ctx, *, query) -> Page:
    """The agent tasks the caller may see (filters: project_id, stage list), most recently changed first; one
    page of records, then its total (when counted) and the names in one more statement (record_page)."""
    Task = task_model()
    stages = parse_stages(query.stage)
    stmt = _filtered(agent_task_list_select().where(visible(ctx.principal)), query.project_id)
    if stages:
        stmt = stmt.where(AgentTask.stage.in_(stages))
    stmt = stmt.order_by(AgentTask.updated_at.desc(), Task.created_at.desc(), AgentTask.id)
    page, sets = record_page(ctx.db, stmt, query, flags=TASK_FLAGS,
                             lookups=lambda rows: agent_task_lookups(ctx.db, rows))
    return replace(page, items=with_agent_task_lookups(page.items, sets))


def get_detail(ctx, *, task_id: str) -> dict:
    agent, task = load_agent_task(ctx, task_id)
    runs, total = recent_runs(ctx.db, task.id)
    return {"task": agent_task_records(ctx.db, [(agent, task)], with_agent=False)[0], "agent": _agent_record(agent),
            "runs": runs, "runs_total": total}


def update_agent_task(ctx, *, task_id: str, data) -> dict:
    """Writes only effort_estimate, scope_document and agent_confidence_note (400 when none is sent). Once the task is
    approved (building, review, done) its scope document is the approved scope: changing it is 409 naming the stage,
    nothing written (session 31); sent back as stored it is no change, and the other two stay editable."""
    values = {name: value for name, value in data.changes().items() if name in EDITABLE}
    if not values:
        raise BadRequest("No fields to update: only effort_estimate, scope_document and agent_confidence_note "
                         "can be changed")
    agent, task = load_agent_task(ctx, task_id)
    # the task was deleted while this edit waited for its row
    agent = lock_row(ctx.db, AgentTask, agent.id, missing="Agent task")
    changes = {name: {"from": getattr(agent, name), "to": value} for name, value in values.items()
               if getattr(agent, name) != value}
    if "scope_document" in changes and agent.stage in APPROVED_STAGES:
        # what was approved is what is built and reviewed: a scope rewritten after approval would describe work
        # nobody approved (the stage read under the row's lock, so an approve meanwhile counts)
        raise Conflict(f"The scope document cannot be changed in stage {agent.stage}: it is the approved scope",
                       details=[{"field": "scope_document",
                                 "message": f"is the approved scope in stage {agent.stage}"}])
    # fields sent back as stored are no change: the record keeps its time and its place in the list (most recently
    # changed first; session 29)
    for name in changes:
        setattr(agent, name, values[name])
    if changes:
        agent.updated_at = utcnow()
        ctx.db.flush()
        history.record(ctx.db, entity_type="task", entity_id=task.id, action="agent_updated", actor_id=ctx.user_id,
                       changes=changes)
    return agent_task_records(ctx.db, [(agent, task)])[0]


def stats(ctx, *, project_id: str | None) -> dict:
    """Totals of the visible agent tasks (and their runs, tokens, cost) and the count per stage: two
    statements whatever the number of tasks."""
    Task = task_model()
    scope = _filtered(select(AgentTask.task_id).join(Task, Task.id == AgentTask.task_id)
                      .where(visible(ctx.principal), is_agent_type()), project_id)
    per_stage = dict(ctx.db.execute(
        _filtered(select(AgentTask.stage, func.count()).join(Task, Task.id == AgentTask.task_id)
                  .where(visible(ctx.principal), is_agent_type()), project_id).group_by(AgentTask.stage)).all())
    runs, tokens, cost = ctx.db.execute(
        select(func.count(AgentRun.id), func.coalesce(func.sum(AgentRun.tokens), 0),
               func.coalesce(func.sum(AgentRun.cost), 0))
        .where(AgentRun.task_id.in_(scope))).one()
    stages = {stage: int(per_stage.get(stage, 0)) for stage in STAGES}
    return {"total_tasks": sum(int(n) for n in per_stage.values()), "total_runs": int(runs or 0),
            "total_tokens": int(tokens or 0), "total_cost": float(cost or 0), "stages": stages}

