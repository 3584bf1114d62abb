"""The tasks area's leaf module: the task read query (joined labels and names, computed counts, in one
statement), the scope clause `visible`, and the load-or-404 helpers. service*.py import it, never the reverse."""
from __future__ import annotations

from functools import cache

from sqlalchemy import Select, false, func, or_, select, true
from sqlalchemy.orm import aliased

from chalicelib.core import scoping
from chalicelib.core.errors import not_found
from chalicelib.core.query import visible_row
from chalicelib.core.models import ConfigListItem, User
from chalicelib.core.serialize import columns, row_dict

from .models import Task, TaskTodo, TaskWatcher

StatusItem = aliased(ConfigListItem, name="status_item")
PriorityItem = aliased(ConfigListItem, name="priority_item")
TypeItem = aliased(ConfigListItem, name="type_item")
PhaseItem = aliased(ConfigListItem, name="phase_item")
Assignee = aliased(User, name="assignee_user")
Reporter = aliased(User, name="reporter_user")
Creator = aliased(User, name="creator_user")
Approver = aliased(User, name="approver_user")

TASK_FIELDS = columns(Task)
TASK_FLAGS = ("is_private",)
JOINED = (
    "assignee_name", "assignee_picture", "reporter_name", "created_by_name", "status_label", "status_color",
    "status_value", "priority_label", "priority_color", "priority_value", "type_label", "type_value",
    "phase_label", "phase_color", "approved_by_name",
)
COUNTS = ("subtask_count", "todo_count", "todo_done_count")


@cache
def task_select() -> Select:
    """Every task with its joined fields and counts: one statement whatever the number of rows.
    Built once per process (statements are immutable; `.where()` answers a copy)."""
    sub = aliased(Task, name="sub_task")
    subtask_count = select(func.count(sub.id)).where(sub.parent_task_id == Task.id).correlate(Task).scalar_subquery()
    todo_count = select(func.count(TaskTodo.id)).where(TaskTodo.task_id == Task.id).correlate(Task).scalar_subquery()
    todo_done_count = (
        select(func.count(TaskTodo.id)).where(TaskTodo.task_id == Task.id, TaskTodo.is_done.is_(True))
        .correlate(Task).scalar_subquery()
    )
    return (
        select(
            Task,
            Assignee.name.label("assignee_name"), Assignee.picture.label("assignee_picture"),
            Reporter.name.label("reporter_name"), Creator.name.label("created_by_name"),
            StatusItem.label.label("status_label"), StatusItem.color.label("status_color"),
            StatusItem.value.label("status_value"),
            PriorityItem.label.label("priority_label"), PriorityItem.color.label("priority_color"),
            PriorityItem.value.label("priority_value"),
            TypeItem.label.label("type_label"), TypeItem.value.label("type_value"),
            PhaseItem.label.label("phase_label"), PhaseItem.color.label("phase_color"),
            Approver.name.label("approved_by_name"),
            subtask_count.label("subtask_count"), todo_count.label("todo_count"),
            todo_done_count.label("todo_done_count"),
        )
        .outerjoin(Assignee, Assignee.id == Task.assignee_id)
        .outerjoin(Reporter, Reporter.id == Task.reporter_id)
        .outerjoin(Creator, Creator.id == Task.created_by)
        .outerjoin(StatusItem, StatusItem.id == Task.status_id)
        .outerjoin(PriorityItem, PriorityItem.id == Task.priority_id)
        .outerjoin(TypeItem, TypeItem.id == Task.type_id)
        .outerjoin(PhaseItem, PhaseItem.id == Task.phase_id)
        .outerjoin(Approver, Approver.id == Task.approved_by_user_id)
    )


def task_record(row) -> dict:
    mapping = row._mapping
    record = row_dict(mapping[Task], TASK_FIELDS, TASK_FLAGS)
    for name in JOINED:
        record[name] = mapping[name]
    for name in COUNTS:
        record[name] = int(mapping[name] or 0)
    return record


def list_order(stmt: Select) -> Select:
    """sort_order, then due_date (nulls last for both), then created_at newest first."""
    return stmt.order_by(Task.sort_order.asc().nulls_last(), Task.due_date.asc().nulls_last(),
                         Task.created_at.desc(), Task.id)


def _own(model, principal):
    """Tasks the principal is assigned to, reported, created or watches (plus the team's, for a manager)."""
    uid = principal.id
    watched = select(TaskWatcher.task_id).where(TaskWatcher.user_id == uid)
    conditions = [model.assignee_id == uid, model.reporter_id == uid, model.created_by == uid, model.id.in_(watched)]
    if scoping.is_manager(principal):
        for column in (model.assignee_id, model.reporter_id, model.created_by):
            conditions.append(column.in_(scoping.team_user_ids(principal)))
    return or_(*conditions)


def visible(principal):
    """WHERE clause of the tasks the principal may see. A subtask is also visible to whoever sees its parent."""
    if principal is None:
        return false()
    if scoping.sees_all(principal):
        return true()
    parent = aliased(Task, name="scope_parent")
    return or_(_own(Task, principal), Task.parent_task_id.in_(select(parent.id).where(_own(parent, principal))))


# --- load or 404 ----------------------------------------------------------------------------------

def load_task(ctx, task_id: str) -> Task:
    """The task if it exists and the caller may see it; 404 otherwise (out of scope looks missing)."""
    return visible_row(ctx.db, Task, task_id, visible(ctx.principal), "Task")


def visible_task_exists(ctx, task_id: str) -> bool:
    """Whether the task exists and the caller may see it (one query); for other areas' reference checks."""
    return ctx.db.scalar(select(Task.id).where(Task.id == task_id, visible(ctx.principal))) is not None


def task_row(db, task_id: str) -> dict:
    row = db.execute(task_select().where(Task.id == task_id)).one()
    return task_record(row)


def load_task_record(ctx, task_id: str) -> dict:
    """The task record if the caller may see it (one query); 404 otherwise."""
    row = ctx.db.execute(task_select().where(Task.id == task_id, visible(ctx.principal))).one_or_none()
    if row is None:
        raise not_found("Task")
    return task_record(row)
