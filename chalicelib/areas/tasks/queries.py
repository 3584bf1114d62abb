"""The tasks area's leaf module: the task read query (the tasks' own columns; labels, names and counts added
by `task_records` with a fixed number of statements per request, core.lookup), the scope clause `visible`, the
load-or-404 helpers, and `default_status_id` (a new task's status). service*.py import it, never the reverse."""
from __future__ import annotations

from functools import cache
from types import SimpleNamespace

from sqlalchemy import Select, bindparam, case, false, func, literal_column, or_, select, true, union_all
from sqlalchemy.orm import aliased
from sqlalchemy.sql import visitors
from sqlalchemy.sql.elements import BindParameter

from chalicelib.core import scoping
from chalicelib.core.lookup import Names, among, ids_read, names_select
from chalicelib.core.query import Read, ids_param, ids_value, record_rows, record_sets, template, visible_row
from chalicelib.core.readers import readers, rows_readers, seen_by
from chalicelib.core.models import ConfigList, ConfigListItem, User
from chalicelib.core.serialize import columns, row_dict

from .models import Task, TaskTodo, TaskWatcher

StatusItem = aliased(ConfigListItem, name="status_item")
PriorityItem = aliased(ConfigListItem, name="priority_item")
Assignee = aliased(User, name="assignee_user")

# the `task_due_soon` job's marker (service_due.py): the task's own columns, not its read model's
NOTICE_FIELDS = ("due_soon_noticed_for", "due_soon_noticed_to")
TASK_FIELDS = [name for name in columns(Task) if name not in NOTICE_FIELDS]
TASK_FLAGS = ("is_private",)
JOINED = (
    "assignee_name", "assignee_picture", "reporter_name", "created_by_name", "status_label", "status_color",
    "status_value", "priority_label", "priority_color", "priority_value", "type_label", "type_value",
    "phase_label", "phase_color", "approved_by_name",
)
COUNTS = ("subtask_count", "todo_count", "todo_done_count")


@cache
def task_select() -> Select:
    """Every task, no joins: the base statement of every task read (the read model's columns, TASK_FIELDS, read as
    records by core.query.record_rows; not the due-soon marker), built once per process (statements are
    immutable; `.where()` answers a copy). Labels, names and counts are added by `task_records`, one statement
    each for the whole page, so that the statement planned on every request stays small."""
    return select(*(getattr(Task, name) for name in TASK_FIELDS))


def done_stage():
    """Whether a status (a `task_status` item) is of `stage_type` `done`: compared ignoring case and surrounding
    spaces, as staff read it (a free string, not trimmed: "Done" or " done " is done too; session 32)."""
    return func.lower(func.trim(ConfigListItem.stage_type)) == "done"


def is_open():
    """WHERE clause of the tasks still open: no status, or a status whose `stage_type` is not `done` (the overdue
    filter's rule, the sprint backlog's and the due-soon job's)."""
    done = select(ConfigListItem.id).where(done_stage())
    return or_(Task.status_id.is_(None), Task.status_id.not_in(done))


def _counts_statement(task_in, scope=None):
    zero = literal_column("0")
    subtasks = (select(Task.parent_task_id.label("task_id"), func.count().label("subtasks"), zero.label("todos"),
                       zero.label("done"))
                .where(task_in(Task.parent_task_id)).group_by(Task.parent_task_id))
    if scope is not None:
        subtasks = subtasks.where(scope)
    todos = (select(TaskTodo.task_id, zero, func.count(), func.sum(case((TaskTodo.is_done.is_(True), 1), else_=0)))
             .where(task_in(TaskTodo.task_id)).group_by(TaskTodo.task_id))
    return union_all(subtasks, todos)


_SCOPE_USER, _SCOPE_SQUAD = "count_scope_user", "count_scope_squad"  # the scoped counts' parameters


def _as_parameters(clause):
    """`clause` with the values `_SCOPE_USER` and `_SCOPE_SQUAD` made the named parameters of those names."""
    def named(element, **_kw):
        if isinstance(element, BindParameter) and element.value in (_SCOPE_USER, _SCOPE_SQUAD):
            return bindparam(element.value, type_=element.type, required=True)
        return None

    return visitors.replacement_traverse(clause, {}, named)


@template
def _scoped_counts_template(postgres: bool, access_level: str, squad: bool):
    """`_counts_statement` under the scope clause of a principal of this access level, with a squad or not:
    `visible` built once for a stand-in whose id and squad are the names of the parameters that carry the
    caller's (a request pays no scope clause of its own)."""
    stand_in = SimpleNamespace(id=_SCOPE_USER, access_level=access_level,
                               user=SimpleNamespace(squad_id=_SCOPE_SQUAD if squad else None))
    return _counts_statement(lambda column: ids_param(column, "count_task_ids", postgres),
                             _as_parameters(visible(stand_in)))


def task_counts_select(db, task_ids, *, visible_to) -> Read | None:
    """The grouped read of a task list's counts (task_records; rows task_id, subtasks, todos, done), None without
    ids. The subtasks counted are those the principal `visible_to` may open (`visible`: the rows the detail's
    subtasks list shows; a subtask of a subtask may be hidden), the todos all (a task's own). Built once per
    process: for a caller who sees every task (`visible` is true for them) and without a principal (None: every
    subtask, for the system's reads) the unscoped statement; otherwise one per access level under the scope clause,
    the caller's id and squad its parameters."""
    if visible_to is None or scoping.sees_all(visible_to):
        return ids_read(db, _counts_statement, "count_task_ids", task_ids)
    postgres = db.get_bind().dialect.name == "postgresql"
    value = ids_value(task_ids, postgres)
    if value is None:  # an id holding a comma: a statement of its own (core.lookup.among)
        return Read(_counts_statement(lambda column: among(db, column, task_ids), visible(visible_to)))
    if not value:
        return None
    squad = visible_to.user.squad_id
    return Read(_scoped_counts_template(postgres, visible_to.access_level, bool(squad)),
                {"count_task_ids": value, _SCOPE_USER: visible_to.id, **({_SCOPE_SQUAD: squad} if squad else {})})


def _counts(rows) -> dict[str, tuple[int, int, int]]:
    counts: dict[str, list[int]] = {}
    for row in rows:
        task_id, subtask_count, todo_count, done_count = (
            (row["task_id"], row["subtasks"], row["todos"], row["done"]) if isinstance(row, dict) else row)
        entry = counts.setdefault(task_id, [0, 0, 0])
        entry[0] += int(subtask_count or 0)
        entry[1] += int(todo_count or 0)
        entry[2] += int(done_count or 0)
    return {task_id: tuple(entry) for task_id, entry in counts.items()}


USER_KEYS = ("assignee_id", "reporter_id", "created_by", "approved_by_user_id")
ITEM_KEYS = ("status_id", "priority_id", "type_id", "phase_id")


def task_lookups(db, records, *, visible_to, new: bool = False, known: Names | None = None) -> dict:
    """The reads that complete task records (names and labels, counts), for one record_sets round trip.
    `visible_to`: the principal whose records they are (the subtasks counted are those they may open; None:
    every one, task_counts_select). `new`: tasks created by this request, which have no subtasks or todos yet
    (no counts). `known`: names and labels read already; the names read is left out when they cover every id."""
    user_ids = [r[key] for r in records for key in USER_KEYS if r[key]]
    item_ids = [r[key] for r in records for key in ITEM_KEYS if r[key]]
    if known is not None and all(uid in known.users for uid in user_ids) and all(
            iid in known.items for iid in item_ids):
        names = None
    else:
        names = names_select(db, user_ids=user_ids, item_ids=item_ids)
    return {"names": names,
            "counts": None if new else task_counts_select(db, [r["id"] for r in records], visible_to=visible_to)}


def with_task_lookups(records: list[dict], sets: dict, known: Names | None = None) -> list[dict]:
    """The records with the joined names and labels (JOINED) and the counts (COUNTS) of `task_lookups`'s
    answers (`sets`; the two are taken out of it) and of `known`."""
    found, counts = Names.of(sets.pop("names")), _counts(sets.pop("counts"))
    if known is not None:
        found.users.update(known.users)
        found.items.update(known.items)
    user, item = found.user, found.item
    for record in records:
        assignee, status = user(record["assignee_id"]), item(record["status_id"])
        priority, kind, phase = item(record["priority_id"]), item(record["type_id"]), item(record["phase_id"])
        record.update(
            assignee_name=assignee["name"], assignee_picture=assignee["picture"],
            reporter_name=user(record["reporter_id"])["name"], created_by_name=user(record["created_by"])["name"],
            status_label=status["label"], status_color=status["color"], status_value=status["value"],
            priority_label=priority["label"], priority_color=priority["color"], priority_value=priority["value"],
            type_label=kind["label"], type_value=kind["value"],
            phase_label=phase["label"], phase_color=phase["color"],
            approved_by_name=user(record["approved_by_user_id"])["name"],
        )
        subtask_count, todo_count, todo_done_count = counts.get(record["id"], (0, 0, 0))
        record.update(subtask_count=subtask_count, todo_count=todo_count, todo_done_count=todo_done_count)
    return records


def task_records(db, tasks, *, visible_to, new: bool = False, also: dict | None = None,
                 known: Names | None = None):
    """Task records with the joined names and labels (JOINED) and the counts (COUNTS): one statement for the
    whole list (the users and config items lookup and the grouped counts sent together, core.query.record_sets),
    none when empty. `tasks`: Task instances, or records already read by `core.query.record_rows` (the lists'
    and the detail's path: no ORM instances). `visible_to`: the principal the records are for (`subtask_count`
    counts the subtasks they may open; None: every one, for a caller with no principal). `new`: tasks created by
    this request, which have no subtasks or todos yet (no counts). `also`: more independent reads for the same
    round trip (`{name: read}`, as record_sets takes them); then the answer is `(records, {name: records})`.
    `known`: names and labels read already (task_lookups)."""
    records = [task if isinstance(task, dict) else row_dict(task, TASK_FIELDS, TASK_FLAGS) for task in tasks]
    sets = record_sets(db, **task_lookups(db, records, visible_to=visible_to, new=new, known=known), **(also or {}))
    records = with_task_lookups(records, sets, known)
    return (records, sets) if also is not None else records


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


_SCOPE_PARENT = aliased(Task, name="scope_parent")  # once per process: an alias proxies its columns on first use


def visible(principal):
    """WHERE clause of the tasks the principal may see. A subtask is also visible to whoever sees its parent."""
    if principal is None:
        return false()
    if scoping.sees_all(principal):
        return true()
    parent = _SCOPE_PARENT
    return or_(_own(Task, principal), Task.parent_task_id.in_(select(parent.id).where(_own(parent, principal))))


# --- load or 404 ----------------------------------------------------------------------------------

def load_task(ctx, task_id: str) -> Task:
    """The task if it exists and the caller may see it; 404 otherwise (out of scope looks missing)."""
    return visible_row(ctx.db, Task, task_id, visible(ctx.principal), "Task")


def task_readers(db, task_id: str, user_ids) -> set[str]:
    """Which of these users may read the task: active, `tasks:view`, and the task inside their scope (`visible`),
    two statements at most whatever their number (core.readers.readers)."""
    return readers(db, Task, task_id, user_ids, tool="tasks", scope_of=visible)


def tasks_readers(db, wanted: dict[str, set[str]]) -> dict[str, set[str]]:
    """`{task_id: the users of wanted[task_id] who may read it}`: `task_readers` for many tasks at once (a job's
    notices), two statements at most whatever the number of tasks and users (core.readers.rows_readers)."""
    return rows_readers(db, Task, wanted, tool="tasks", scope_of=visible)


def task_seen_by(db, task_id: str, principals) -> set[str]:
    """Which of these principals see the task: its scope clause as each of them, in one statement (a UNION ALL;
    none for no principals). The notes area asks it of the users a note mentions."""
    return seen_by(db, Task, task_id, principals, visible)


def visible_task_exists(ctx, task_id: str) -> bool:
    """Whether the task exists and the caller may see it (`tasks:view` and the scope; one query, none without the
    tool); for other areas' reference checks."""
    if not ctx.reads("tasks"):
        return False
    return ctx.db.scalar(select(Task.id).where(Task.id == task_id, visible(ctx.principal))) is not None


def visible_task_titles(ctx, task_ids) -> dict[str, str]:
    """`{task_id: title}` for the ids that exist inside the caller's task scope (`visible`), one statement; a task
    out of scope is left out like a missing one, so another area naming a task (a budget's line item or time entry)
    answers its title only to whoever may read the task; none, and no statement, without `tasks:view`."""
    ids = {tid for tid in task_ids or () if tid}
    if not ids or not ctx.reads("tasks"):
        return {}
    return dict(ctx.db.execute(select(Task.id, Task.title).where(Task.id.in_(ids), visible(ctx.principal))).all())


def task_row(db, task_id: str, *, visible_to) -> dict:
    return task_records(db, record_rows(db, task_select().where(Task.id == task_id), TASK_FLAGS),
                        visible_to=visible_to)[0]


def default_status_id(db) -> str | None:
    return db.scalar(
        select(ConfigListItem.id).join(ConfigList, ConfigList.id == ConfigListItem.list_id)
        .where(ConfigList.key == "task_status", ConfigListItem.is_default.is_(True))
        .order_by(ConfigListItem.position, ConfigListItem.label, ConfigListItem.id).limit(1))
