"""The agents area's leaf module: the scope clause `visible` (an agent task is seen with its task), the
load-or-404 helpers, the record builders and the read queries. service*.py import it, never the reverse."""
from __future__ import annotations

from functools import cache

from sqlalchemy import func, select

from chalicelib.core.errors import not_found
from chalicelib.core.lookup import Names, names_select
from chalicelib.core.models import ConfigListItem
from chalicelib.core.query import record_sets
from chalicelib.core.serialize import row_dict, value_out

from .models import AgentRun, AgentTask, ProjectAgentConfig

AGENT_FIELDS = ("id", "task_id", "stage", "effort_estimate", "scope_document", "agent_confidence_note", "retry_count",
                "branch_name", "pr_url", "preview_url", "browser_test_status", "browser_test_video_url",
                "ci_status", "created_at", "updated_at")
TASK_FIELDS = ("id", "title", "description", "resource_type", "resource_id", "status_id", "priority_id", "type_id",
               "phase_id", "assignee_id", "reporter_id", "created_by", "parent_task_id", "roadmap_item_id", "sprint_id",
               "due_date", "start_date", "estimated_hours", "internal_hours", "is_private", "sort_order",
               "reported_by_contact_id", "requirements", "scope", "delivery_notes", "testing_notes",
               "estimate_compute_hours", "estimate_total_cost", "approved_by_user_id", "approved_at", "created_at",
               "updated_at")
TASK_FLAGS = ("is_private",)
RUN_FIELDS = ("id", "task_id", "project_id", "stage", "status", "tokens", "cost", "error", "feedback", "created_by",
              "started_at", "finished_at", "created_at", "updated_at")
CONFIG_FIELDS = ("id", "project_id", "project_type", "repo_org", "repo_name", "default_branch", "deploy_target",
                 "preview_url_pattern", "production_url", "workflow_config", "runner_url", "updated_by",
                 "created_at", "updated_at")
RECENT_RUNS = 50  # runs in an agent task's detail, newest first (runs_total says how many there are)


def task_model():
    """The tasks area's Task model (reached through its service)."""
    from chalicelib.areas.tasks import service as tasks_service  # another area: imported lazily

    return tasks_service.Task


def visible(principal):
    """WHERE clause of the agent tasks the principal may see: those whose task the principal sees (document 1,
    Tasks: own, squad for a manager, all for head and executive). Used with `Task` joined."""
    from chalicelib.areas.tasks import service as tasks_service  # another area: imported lazily

    return tasks_service.visible(principal)


AGENT_TYPE = "agent_task"


def is_agent_type():
    """WHERE clause (with `Task` joined): the task's type is `agent_task` (document 1: an agent task is a task
    of that type). A meta record outlives a change of type (docs/decisions/tasks.md); such a task is out of the
    pipeline until its type is agent_task again. A subquery of the same statement, no extra round trip."""
    Task = task_model()
    return Task.type_id.in_(select(ConfigListItem.id).where(ConfigListItem.value == AGENT_TYPE))


def agent_task_select():
    """(AgentTask, Task) rows: an agent task with its task (one join), the task still of type agent_task."""
    Task = task_model()
    return select(AgentTask, Task).join(Task, Task.id == AgentTask.task_id).where(is_agent_type())


def load_agent_task(ctx, task_id: str, *, lock_task: bool = False):
    """(agent meta, task) of the task if it is an agent task the caller may see; 404 otherwise (one query).
    `lock_task`: the same statement takes the task row FOR KEY SHARE (and re-reads both rows), for a write about to
    name the task (a move's run): the task row is taken before the meta row, in the order of the task's delete
    (the task row, then its ON DELETE CASCADE to the meta row), so a move and a delete wait for each other instead
    of deadlocking; a move that waited for the delete finds no row (404)."""
    Task = task_model()
    stmt = agent_task_select().where(Task.id == task_id, visible(ctx.principal))
    if lock_task:
        stmt = stmt.with_for_update(read=True, key_share=True, of=Task).execution_options(populate_existing=True)
    row = ctx.db.execute(stmt).first()
    if row is None:
        raise not_found("Agent task")
    return row[0], row[1]


def agent_record(agent: AgentTask) -> dict:
    return row_dict(agent, AGENT_FIELDS)


def project_of(task) -> str | None:
    """The project a task belongs to: the one it links (resource_type `project`)."""
    return linked_project(task.resource_type, task.resource_id)


def linked_project(resource_type: str | None, resource_id: str | None) -> str | None:
    return resource_id if resource_type == "project" and resource_id else None


def _flat(agent, task) -> dict:
    """An (agent, task) pair of ORM rows as the list's flat record (agent columns prefixed `agent_`)."""
    record = row_dict(task, TASK_FIELDS, flags=TASK_FLAGS)
    record.update({f"agent_{name}": value for name, value in row_dict(agent, AGENT_FIELDS).items()})
    return record


@cache
def agent_task_list_select():
    """The list's rows: the task's columns and the agent meta's (prefixed `agent_`), one join; records through
    core.query.record_rows. Built once per process (`.where()` answers a copy)."""
    Task = task_model()
    return (select(*(getattr(Task, name) for name in TASK_FIELDS),
                   *(getattr(AgentTask, name).label(f"agent_{name}") for name in AGENT_FIELDS))
            .select_from(AgentTask).join(Task, Task.id == AgentTask.task_id).where(is_agent_type()))


def agent_task_lookups(db, records) -> dict:
    """The read that completes agent task records (assignee, reporter, status and priority names), for one
    record_sets round trip with the list's count."""
    return {"names": names_select(db, user_ids=[uid for r in records for uid in (r["assignee_id"], r["reporter_id"])],
                                  item_ids=[iid for r in records for iid in (r["status_id"], r["priority_id"])])}


def with_agent_task_lookups(records: list[dict], sets: dict, *, with_agent: bool = True) -> list[dict]:
    """Flat records (agent_task_list_select's or `_flat`'s) as agent task records: the task's fields, its
    project, the names from `agent_task_lookups`'s answers, and `agent` (dropped when not `with_agent`)."""
    found = Names.of(sets["names"])
    out = []
    for flat in records:
        agent = {name: flat.pop(f"agent_{name}") for name in AGENT_FIELDS}
        status, priority = found.item(flat["status_id"]), found.item(flat["priority_id"])
        assignee = found.user(flat["assignee_id"])
        flat.update(project_id=linked_project(flat["resource_type"], flat["resource_id"]),
                    status_label=status["label"], status_color=status["color"], status_value=status["value"],
                    priority_label=priority["label"], priority_color=priority["color"],
                    priority_value=priority["value"], assignee_name=assignee["name"],
                    assignee_picture=assignee["picture"], reporter_name=found.user(flat["reporter_id"])["name"])
        if with_agent:
            flat["agent"] = agent
        out.append(flat)
    return out


def agent_task_records(db, rows, *, with_agent: bool = True) -> list[dict]:
    """Records of (agent, task) rows with assignee, reporter, status and priority names: one statement for the
    whole list (core.lookup), none when empty."""
    records = [_flat(agent, task) for agent, task in rows]
    if not records:
        return []
    return with_agent_task_lookups(records, record_sets(db, **agent_task_lookups(db, records)), with_agent=with_agent)


def run_record(run: AgentRun) -> dict:
    record = row_dict(run, RUN_FIELDS)
    record["cost"] = float(run.cost or 0)
    record["tokens"] = int(run.tokens or 0)
    return record


def recent_runs(db, task_id: str) -> tuple[list[dict], int]:
    """The task's most recent runs, newest first, and how many it has (two statements)."""
    runs = db.scalars(select(AgentRun).where(AgentRun.task_id == task_id)
                      .order_by(AgentRun.created_at.desc(), AgentRun.id.desc()).limit(RECENT_RUNS)).all()
    total = len(runs) if len(runs) < RECENT_RUNS else db.scalar(
        select(func.count()).select_from(AgentRun).where(AgentRun.task_id == task_id))
    return [run_record(run) for run in runs], int(total)


# --- project agent configuration ----------------------------------------------------------------

def load_project(ctx, project_id: str):
    """The project if the caller may see it; 404 otherwise (the projects area decides)."""
    from chalicelib.areas.projects import service as projects_service  # another area: imported lazily

    return projects_service.load_project(ctx, project_id)


def project_config(db, project_id: str) -> ProjectAgentConfig | None:
    return db.scalar(select(ProjectAgentConfig).where(ProjectAgentConfig.project_id == project_id))


def config_record(config: ProjectAgentConfig) -> dict:
    """The configuration as answered: never the secret, only whether one is set."""
    record = row_dict(config, CONFIG_FIELDS)
    record["enabled"] = 1 if config.enabled else 0
    record["runner_secret_set"] = 1 if config.runner_secret_encrypted else 0
    return record


def payload_config(config: ProjectAgentConfig) -> dict:
    """The configuration sent to the runner with a run (everything but the secret)."""
    return {name: value_out(getattr(config, name)) for name in CONFIG_FIELDS
            if name not in ("id", "updated_by", "created_at", "updated_at")}
