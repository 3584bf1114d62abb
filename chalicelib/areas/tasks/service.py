"""Tasks: list, detail, create, duplicate, update, delete, history; functions other areas call.

Todos live in service_todos.py; watchers and attached links in service_links.py.
"""
from __future__ import annotations

from dataclasses import replace
from functools import cache

from sqlalchemy import (String, bindparam, case, cast, func, literal_column, null, or_, select, union_all,
                        update as sql_update)

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Forbidden, NotFound, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_later, lock_key, lock_row
from chalicelib.core.lookup import Names
from chalicelib.core.models import ConfigList, ConfigListItem, Squad, User
from chalicelib.core.query import (LIST_LIMIT, Page, Read, contains_text, ids_param, ids_value, paginate, record_page,
                                   record_rows, template)
from chalicelib.core.schemas import PageQuery, comma_values
from chalicelib.core.serialize import columns, row_dict, value_out
from chalicelib.core.timeutil import org_today, week_bounds

from .models import Task, TaskWatcher
from .queries import (TASK_FLAGS, Assignee, PriorityItem, StatusItem, list_order, load_task, task_lookups,
                      task_records, task_row, task_select, visible, with_task_lookups)
from .queries import task_seen_by, visible_task_exists  # noqa: F401 - other areas check their task references through the service
from .schemas import TaskCreate, TaskListQuery, TaskUpdate
from .service_todos import todo_select

CONFIG_FIELDS = {"status_id": "task_status", "priority_id": "task_priority", "type_id": "task_type",
                 "phase_id": "task_phase"}
USER_FIELDS = ("assignee_id", "reporter_id", "approved_by_user_id")


# --- loading and scoping ------------------------------------------------------------------------

# --- validation ---------------------------------------------------------------------------------

RESOURCE_TYPES = ("project", "deal", "company")


def _linked_resource_problem(ctx, resource_type: str | None, resource_id: str | None) -> str | None:
    """Why the linked resource is refused, or None: a project must be one the caller can see (a hidden one
    answers like a missing one), a deal or company must exist (they are not scoped)."""
    if resource_type is None and resource_id is None:
        return None
    if resource_type is None or resource_id is None:
        return "resource_type and resource_id are set together"
    if resource_type == "project":
        from chalicelib.areas.projects import service as projects_service  # another area: imported lazily

        try:
            projects_service.load_project(ctx, resource_id)
        except NotFound:
            return "must be an existing project you can see"
        return None
    if resource_type in ("deal", "company"):
        from chalicelib.areas.deals import service as deals_service  # another area: imported lazily

        exists = (deals_service.deal_brief(ctx.db, resource_id) is not None if resource_type == "deal"
                  else resource_id in deals_service.company_names(ctx.db, [resource_id]))
        return None if exists else f"must be an existing {resource_type}"
    return f"resource_type must be one of {', '.join(RESOURCE_TYPES)}"


def _references_parts(item_where, user_where):
    parts = []
    if item_where is not None:
        parts.append(select(literal_column("'i'").label("kind"), ConfigListItem.id.label("id"),
                            ConfigList.key.label("key"), ConfigListItem.label.label("a"),
                            ConfigListItem.color.label("b"), ConfigListItem.value.label("c"))
                     .join(ConfigList, ConfigList.id == ConfigListItem.list_id).where(item_where))
    if user_where is not None:
        # a user's `key` says whether they are active (a deactivated user is no assignee or reporter)
        parts.append(select(literal_column("'u'").label("kind"), User.id.label("id"),
                            case((User.is_active.is_(True), literal_column("'active'")), else_=cast(null(), String))
                            .label("key"),
                            User.name.label("a"), User.picture.label("b"), cast(null(), String).label("c"))
                     .where(user_where))
    return parts[0] if len(parts) == 1 else union_all(*parts)


@template
def _references_template(postgres: bool, items: bool, users: bool):
    return _references_parts(ids_param(ConfigListItem.id, "ref_item_ids", postgres) if items else None,
                             ids_param(User.id, "ref_user_ids", postgres) if users else None)


def _references_read(db, config_ids: set, user_ids: set) -> Read | None:
    """The config items (with their list's key) and users a write names (rows kind, id, key, a, b, c), built
    once per process; None when it names none. An id holding a comma gets a statement of its own."""
    if not config_ids and not user_ids:
        return None
    postgres = db.get_bind().dialect.name == "postgresql"
    items, users = ids_value(config_ids, postgres), ids_value(user_ids, postgres)
    if items is None or users is None:
        return Read(_references_parts(ConfigListItem.id.in_(config_ids) if config_ids else None,
                                      User.id.in_(user_ids) if user_ids else None))
    params = {}
    if items:
        params["ref_item_ids"] = items
    if users:
        params["ref_user_ids"] = users
    return Read(_references_template(postgres, bool(items), bool(users)), params)


def check_references(ctx, values: dict, *, task_id: str | None = None, current: Task | None = None) -> Names:
    """Config item ids must belong to their list, user ids must exist, the parent must be a task the caller
    can see (an invisible parent answers like a missing one): else 400. Answers the names and labels of the
    users and config items it read (a record built next need not look them up again)."""
    db = ctx.db
    approver = values.get("approved_by_user_id")
    if approver and approver != ctx.user_id:  # an approval is recorded by the one who gives it, never for another
        raise Forbidden("approved_by_user_id may name only yourself: you record your own approval")
    details = []
    config_ids = {values[name] for name in CONFIG_FIELDS if values.get(name)}
    user_ids = {values[name] for name in USER_FIELDS if values.get(name)}
    # the config items with their list, and the users, in one statement (with what records show)
    read = _references_read(db, config_ids, user_ids)
    rows = db.execute(read.stmt, read.params).all() if read is not None else []
    found = {row[1]: row[2] for row in rows if row[0] == "i"}
    existing = {row[1] for row in rows if row[0] == "u"}
    active = {row[1] for row in rows if row[0] == "u" and row[2] == "active"}
    known = Names.of((kind, row_id, a, b, c) for kind, row_id, _key, a, b, c in rows)
    for name, list_key in CONFIG_FIELDS.items():
        value = values.get(name)
        if value and found.get(value) != list_key:
            details.append({"field": name, "message": f"must be an item of the {list_key} list"})
    for name in USER_FIELDS:
        value = values.get(name)
        if value and value not in existing:
            details.append({"field": name, "message": "must be an existing user"})
        elif value and value not in active:  # nobody who cannot sign in is given (or reports) a task
            details.append({"field": name, "message": "must be an active user"})
    parent_id = values.get("parent_task_id")
    if parent_id:
        if parent_id == task_id:
            details.append({"field": "parent_task_id", "message": "a task cannot be its own parent"})
        elif db.scalar(select(Task.id).where(Task.id == parent_id, visible(ctx.principal))) is None:
            details.append({"field": "parent_task_id", "message": "must be an existing task"})
        elif task_id is not None and _is_descendant(db, parent_id, task_id):
            details.append({"field": "parent_task_id", "message": "a task cannot be moved under its own subtask"})
    if "resource_type" in values or "resource_id" in values:
        resource_type = values.get("resource_type", current.resource_type if current is not None else None)
        resource_id = values.get("resource_id", current.resource_id if current is not None else None)
        problem = _linked_resource_problem(ctx, resource_type, resource_id)
        if problem:
            details.append({"field": "resource_id" if "resource_id" in values else "resource_type",
                            "message": problem})
    roadmap_item_id = values.get("roadmap_item_id")
    if roadmap_item_id:
        from chalicelib.areas.roadmaps import service as roadmaps_service  # another area: imported lazily

        if not roadmaps_service.visible_item_exists(ctx, roadmap_item_id):
            details.append({"field": "roadmap_item_id", "message": "must be an existing roadmap item"})
    sprint_id = values.get("sprint_id")
    if sprint_id:
        from chalicelib.areas.sprints import service as sprints_service  # another area: imported lazily

        if not sprints_service.visible_sprint_exists(ctx, sprint_id):
            details.append({"field": "sprint_id", "message": "must be an existing sprint"})
    if details:
        raise BadRequest("Invalid task fields", details=details)
    return known


def _is_descendant(db, candidate_id: str, ancestor_id: str) -> bool:
    """Whether `candidate_id` sits below `ancestor_id`: one statement (a recursive CTE walking up the parents,
    bounded at 100 levels; a chain deeper than that answers True, as a cycle would)."""
    from sqlalchemy import literal

    up = (select(Task.parent_task_id.label("id"), literal(1).label("depth")).where(Task.id == candidate_id)
          .cte("task_parents", recursive=True))
    up = up.union_all(select(Task.parent_task_id, up.c.depth + 1).join(up, Task.id == up.c.id)
                      .where(up.c.depth < _PARENT_WALK))
    found = db.execute(select(func.count().filter(up.c.id == ancestor_id),
                              func.count().filter(up.c.depth == _PARENT_WALK, up.c.id.is_not(None)))).one()
    return bool(found[0] or found[1])


_PARENT_WALK = 100  # levels of parents the move check walks up


def default_status_id(db) -> str | None:
    return db.scalar(
        select(ConfigListItem.id).join(ConfigList, ConfigList.id == ConfigListItem.list_id)
        .where(ConfigList.key == "task_status", ConfigListItem.is_default.is_(True))
        .order_by(ConfigListItem.position, ConfigListItem.label).limit(1))


def _is_agent_type(db, type_id: str | None) -> bool:
    if not type_id:
        return False
    return db.scalar(select(ConfigListItem.value).where(ConfigListItem.id == type_id)) == "agent_task"


# --- list ---------------------------------------------------------------------------------------

def list_tasks(ctx, *, query: TaskListQuery) -> Page:
    stmt = task_select().where(visible(ctx.principal))
    for name in ("assignee_id", "status_id", "priority_id", "type_id"):
        values = comma_values(getattr(query, name))
        if values:
            stmt = stmt.where(getattr(Task, name).in_(values))
    squads = comma_values(query.squad)
    if squads:
        members = select(User.id).join(Squad, Squad.id == User.squad_id).where(
            or_(Squad.id.in_(squads), Squad.name.in_(squads)))
        stmt = stmt.where(Task.assignee_id.in_(members))
    if query.resource_type:
        stmt = stmt.where(Task.resource_type == query.resource_type)
    if query.resource_id:
        stmt = stmt.where(Task.resource_id == query.resource_id)
    if query.roadmap_item_id:
        stmt = stmt.where(Task.roadmap_item_id == query.roadmap_item_id)
    if query.parent_id is not None:
        if query.parent_id.strip() in ("", "null"):
            stmt = stmt.where(Task.parent_task_id.is_(None))
        else:
            stmt = stmt.where(Task.parent_task_id == query.parent_id)
    if query.show_subtasks is False:
        stmt = stmt.where(Task.parent_task_id.is_(None))
    due = query.due or ("overdue" if query.overdue else None)
    today = org_today()
    if due == "today":
        stmt = stmt.where(Task.due_date == today)
    elif due == "upcoming":
        monday, sunday = week_bounds(today)
        stmt = stmt.where(Task.due_date >= monday, Task.due_date <= sunday)
    elif due == "overdue":
        done = select(ConfigListItem.id).where(ConfigListItem.stage_type == "done")
        stmt = stmt.where(Task.due_date < today, or_(Task.status_id.is_(None), Task.status_id.not_in(done)))
    if query.search and query.search.strip():
        term = query.search.strip()
        stmt = stmt.where(contains_text(term, Task.title, Task.description))
    page, sets = record_page(ctx.db, list_order(stmt), query, TASK_FLAGS,
                             lookups=lambda rows: task_lookups(ctx.db, rows))
    return replace(page, items=with_task_lookups(page.items, sets))


# --- detail ---------------------------------------------------------------------------------------

def _subtasks(ctx, task_id: str):
    return task_select().where(Task.parent_task_id == task_id, visible(ctx.principal)).order_by(
        Task.sort_order.asc().nulls_last(), Task.created_at, Task.id)


def task_detail(ctx, task_id: str) -> dict:
    """The detail body: the task and its first LIST_LIMIT visible subtasks read by one statement (the scope
    clause applies to both; a task out of scope answers 404 even when a subtask of it is visible), their
    names, labels and counts by one `task_records` call for all of them, then the todos, watchers and agent
    record: seven statements with the caller's, whatever the children (issue 11 item 6)."""
    first = case((Task.id == task_id, 0), else_=1)
    rows = record_rows(ctx.db, task_select().where(
        or_(Task.id == task_id, Task.parent_task_id == task_id), visible(ctx.principal))
        .order_by(first, Task.sort_order.asc().nulls_last(), Task.created_at, Task.id).limit(LIST_LIMIT + 1),
        TASK_FLAGS)
    if not rows or rows[0]["id"] != task_id:
        raise not_found("Task")
    from chalicelib.areas.agents import service as agents_service  # another area: imported lazily

    records, sets = task_records(ctx.db, rows, also={
        "todos": todo_select(task_id), "watchers": watcher_select(task_id),
        "agent": agents_service.agent_select(task_id)})
    return {"task": records[0], "todos": sets["todos"], "subtasks": records[1:], "watchers": sets["watchers"],
            "agent": sets["agent"][0] if sets["agent"] else None}


def subtask_page(ctx, task_id: str, query) -> Page:
    page, sets = record_page(ctx.db, _subtasks(ctx, task_id), query, TASK_FLAGS,
                             lookups=lambda rows: task_lookups(ctx.db, rows))
    return replace(page, items=with_task_lookups(page.items, sets))


@template
def _watcher_template():
    return (select(User.id, User.name, User.picture).join(TaskWatcher, TaskWatcher.user_id == User.id)
            .where(TaskWatcher.task_id == bindparam("watcher_task_id")).order_by(TaskWatcher.created_at, User.name)
            .limit(LIST_LIMIT))


def watcher_select(task_id: str) -> Read:
    """The task's watchers (id, name, picture), first watcher first."""
    return Read(_watcher_template(), {"watcher_task_id": task_id})



def task_history(ctx, *, task_id: str, query) -> Page:
    load_task(ctx, task_id)
    return history.entries(ctx.db, entity_type="task", entity_id=task_id, query=query)


# --- writes ---------------------------------------------------------------------------------------

def _notify_assigned(ctx, task: Task) -> None:
    """`task_assigned` to the new assignee unless they assigned it themselves. Called only when the task is made or
    its assignee really changes (under the task's row lock); core notify's 5-minute de-duplication applies, as
    document 3 states for every notification."""
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    if task.assignee_id and task.assignee_id != ctx.user_id:
        notify(ctx, user_id=task.assignee_id, type="task_assigned", title=f"You were assigned a task: {task.title}",
               body=task.description[:500] if task.description else None, resource_type="task",
               resource_id=task.id, action_url=f"/tasks/{task.id}", actor_id=ctx.user_id)


def ensure_agent_meta(db, task_id: str) -> None:
    """A task of type `agent_task` gets its agent meta record (document 1), made by the agents area."""
    from chalicelib.areas.agents import service as agents_service  # another area: imported lazily

    agents_service.ensure_agent_meta(db, task_id)


def _after_create(ctx, task: Task) -> None:
    history.record(ctx.db, entity_type="task", entity_id=task.id, action="created", actor_id=ctx.user_id,
                   changes={"title": task.title})
    _notify_assigned(ctx, task)
    if _is_agent_type(ctx.db, task.type_id):
        ensure_agent_meta(ctx.db, task.id)


def create_task(ctx, *, data: TaskCreate, parent: Task | None = None) -> dict:
    values = data.changes()
    values["title"] = data.title
    if parent is not None:
        values["parent_task_id"] = parent.id
    known = check_references(ctx, values)
    if not values.get("status_id"):
        values["status_id"] = default_status_id(ctx.db)
    if values.get("is_private") is None:
        values["is_private"] = False
    values.setdefault("reporter_id", ctx.user_id)
    # the INSERT rides with the next statement (the notice's read, or the COMMIT): a round trip less
    task = insert_later(ctx.db, Task, {**values, "created_by": ctx.user_id})
    _after_create(ctx, task)
    _assign_project_sla(ctx, task)
    # the object holds every column (defaults applied): no reload, and a task created
    # just now has no subtasks or todos to count; the names the reference check read, and the caller's own,
    # need no lookup
    known.users.setdefault(ctx.user_id, {"name": ctx.principal.user.name, "picture": ctx.principal.user.picture})
    return task_records(ctx.db, [task], new=True, known=known)[0]


def _assign_project_sla(ctx, task: Task) -> None:
    """A task created in a project that has an SLA policy gets its SLA assignment (the SLA area decides)."""
    if task.resource_type != "project" or not task.resource_id:
        return
    from chalicelib.areas.projects import service as projects_service
    from chalicelib.areas.sla import service as sla_service

    policy_id = projects_service.load_project(ctx, task.resource_id).sla_policy_id
    if policy_id:
        sla_service.assign_on_task_create(ctx, task, policy_id)


# Document 1: a duplicate has " (copy)" appended to its title, the default status, the caller as reporter, and "all
# other fields copied": the assignee (a deactivated one too: core notify tells them nothing) and the approval
# (`approved_by_user_id`, `approved_at`) included. Only the id, the timestamps and the creator are the copy's own.
COPIED_FIELDS = [name for name in columns(Task) if name not in ("id", "created_at", "updated_at", "status_id",
                                                                   "reporter_id", "created_by", "title")]


def duplicate_task(ctx, *, task_id: str) -> dict:
    original = load_task(ctx, task_id)
    copy = Task(**{name: getattr(original, name) for name in COPIED_FIELDS})
    copy.title = (original.title + " (copy)")[:500]
    copy.status_id = default_status_id(ctx.db)
    copy.reporter_id = ctx.user_id
    copy.created_by = ctx.user_id
    ctx.db.add(copy)
    ctx.db.flush()
    _after_create(ctx, copy)
    return task_row(ctx.db, copy.id)


def update_task(ctx, *, task_id: str, data: TaskUpdate) -> dict:
    values = data.changes()
    if not values:
        raise BadRequest("No fields to update")
    if values.get("parent_task_id"):
        # moves under a task take turns (one key for all: a cycle spans tasks), so that each checks the parents
        # the others left: A under B and B under A at once cannot both pass
        lock_key(ctx.db, "tasks:parent_task_id")
    # the visible task, locked and read in one statement before `before` is taken: concurrent updates each see the
    # others' changes, so a status change or an assignment is recorded, and told, by the one update that made it
    task = lock_row(ctx.db, Task, task_id, where=visible(ctx.principal), missing="Task")
    # a value sent back unchanged is not checked again (a client may PUT the whole record it read)
    check_references(ctx, {name: value for name, value in values.items() if value != getattr(task, name)},
                     task_id=task.id, current=task)
    before = {name: getattr(task, name) for name in ("status_id", "assignee_id", "type_id")}
    for name, value in values.items():
        setattr(task, name, value)
    task.updated_at = utcnow()
    ctx.db.flush()
    db = ctx.db
    if task.status_id != before["status_id"]:
        history.record(db, entity_type="task", entity_id=task.id, action="status_changed", actor_id=ctx.user_id,
                       changes={"status_id": {"from": before["status_id"], "to": task.status_id}})
        from chalicelib.areas.portal import service as portal_service  # a client's request: its requester is told

        portal_service.task_status_changed(ctx, task_id=task.id, title=task.title)
    if task.assignee_id != before["assignee_id"]:
        history.record(db, entity_type="task", entity_id=task.id, action="assigned", actor_id=ctx.user_id,
                       changes={"assignee_id": {"from": before["assignee_id"], "to": task.assignee_id}})
        _notify_assigned(ctx, task)
    if task.type_id != before["type_id"] and _is_agent_type(db, task.type_id):
        ensure_agent_meta(db, task.id)
    return task_row(db, task.id)


def delete_task(ctx, *, task_id: str) -> None:
    task = load_task(ctx, task_id)
    ctx.db.delete(task)
    ctx.db.flush()


# --- for other areas (projects) -------------------------------------------------------------------

PROJECT_TASK_FIELDS = ("id", "title", "status_id", "priority_id", "assignee_id", "due_date", "sort_order",
                       "created_at")


def project_tasks(db, project_id: str, query, *, visible_to, public_only: bool = False) -> Page:
    """Top-level tasks linked to a project (resource_type `project`) that the principal `visible_to` may see
    (the tasks' data scoping; None: every one, for a caller that scopes otherwise), with joined names and
    labels, in list order: sort_order, due_date (nulls last), created_at newest first; `public_only`: not
    private (what a client may read). One query. Dates and timestamps are ISO strings."""
    from .queries import visible

    stmt = (
        select(Task.id, Task.title, Task.status_id, Task.priority_id, Task.assignee_id, Task.due_date,
               Task.sort_order, Task.created_at,
               Assignee.name.label("assignee_name"), Assignee.picture.label("assignee_picture"),
               StatusItem.label.label("status_label"), StatusItem.color.label("status_color"),
               StatusItem.value.label("status_value"),
               PriorityItem.label.label("priority_label"), PriorityItem.color.label("priority_color"))
        .outerjoin(Assignee, Assignee.id == Task.assignee_id)
        .outerjoin(StatusItem, StatusItem.id == Task.status_id)
        .outerjoin(PriorityItem, PriorityItem.id == Task.priority_id)
        .where(Task.resource_type == "project", Task.resource_id == project_id, Task.parent_task_id.is_(None))
    )
    if visible_to is not None:
        stmt = stmt.where(visible(visible_to))
    if public_only:
        stmt = stmt.where(Task.is_private.is_(False))
    return paginate(db, list_order(stmt), query, lambda row: {key: value_out(value) for key, value in row._mapping.items()})


def sprint_board(ctx, sprint_id: str, project_id: str) -> tuple[list[dict], list[dict]]:
    """(sprint tasks, backlog tasks) the caller can see, as task records in list order, at most LIST_LIMIT
    each: the tasks planned into the sprint, and the top-level tasks of the sprint's project in no sprint and
    not done. Six statements whatever their number (two reads, two lookups each)."""
    from sqlalchemy import and_

    from .queries import visible

    sprint = ctx.db.scalars(list_order(task_select().where(Task.sprint_id == sprint_id, visible(ctx.principal)))
                            .limit(LIST_LIMIT)).all()
    done = select(ConfigListItem.id).where(ConfigListItem.stage_type == "done")
    backlog = ctx.db.scalars(list_order(task_select().where(
        and_(Task.resource_type == "project", Task.resource_id == project_id, Task.sprint_id.is_(None),
             Task.parent_task_id.is_(None), or_(Task.status_id.is_(None), Task.status_id.not_in(done))),
        visible(ctx.principal))).limit(LIST_LIMIT)).all()
    return task_records(ctx.db, sprint), task_records(ctx.db, backlog)


def project_deleted(db, project_id: str) -> None:
    """A deleted project's tasks become standalone (resource link cleared, one UPDATE): they are kept, with
    their subtasks, todos and history, but no longer name a project that answers 404 (a detail showing it as
    linked, a duplicate copying the dead link). `updated_at` is left: the task itself was not edited."""
    from sqlalchemy import update

    db.execute(update(Task).where(Task.resource_type == "project", Task.resource_id == project_id)
               .values(resource_type=None, resource_id=None).execution_options(synchronize_session=False))


def task_titles(db, task_ids) -> dict[str, str]:
    """`{task_id: title}` for the ids that exist (one query; no scoping)."""
    ids = {tid for tid in task_ids or () if tid}
    if not ids:
        return {}
    return dict(db.execute(select(Task.id, Task.title).where(Task.id.in_(ids))).all())


def roadmap_item_tasks(ctx, item_ids) -> Page:
    """Tasks linked to these roadmap items that the caller may see, with status_label and status_color,
    in list order: the first LIST_LIMIT, with the total, all counted: the roadmap detail's `tasks_total` has no
    `total_exact` beside it (one query, two when there are more)."""
    ids = [iid for iid in dict.fromkeys(item_ids or []) if iid]
    if not ids:
        return Page([], 0, LIST_LIMIT, 0)
    stmt = (
        select(Task.id, Task.title, Task.roadmap_item_id, Task.status_id, Task.priority_id, Task.assignee_id,
               Task.due_date, Task.start_date, Task.sort_order, Task.created_at,
               Assignee.name.label("assignee_name"),
               StatusItem.label.label("status_label"), StatusItem.color.label("status_color"),
               StatusItem.value.label("status_value"))
        .outerjoin(Assignee, Assignee.id == Task.assignee_id)
        .outerjoin(StatusItem, StatusItem.id == Task.status_id)
        .where(Task.roadmap_item_id.in_(ids), visible(ctx.principal))
    )
    return paginate(ctx.db, list_order(stmt), PageQuery(),
                    lambda row: {key: value_out(value) for key, value in row._mapping.items()}, exact_total=True)


def clear_roadmap_items(db, item_ids) -> None:
    """Roadmap items are being deleted: their tasks lose `roadmap_item_id`."""
    ids = [iid for iid in item_ids or [] if iid]
    if ids:
        db.execute(sql_update(Task).where(Task.roadmap_item_id.in_(ids)).values(roadmap_item_id=None)
                   .execution_options(synchronize_session=False))


def project_task_counts(resource_in):
    """A statement of (project_id, 'tasks', count of top-level tasks linked to it) for the projects with any,
    `resource_in(column)` being the projects' `column IN (...)` clause (a template's parameter or a list):
    the projects area unions it with its own counts, so that a project list reads all its counts in one
    grouped statement (issue 11 item 1)."""
    return (select(Task.resource_id, literal_column("'tasks'"), func.count(Task.id))
            .where(Task.resource_type == "project", resource_in(Task.resource_id), Task.parent_task_id.is_(None))
            .group_by(Task.resource_id))




def create_subtask(ctx, *, parent_id: str, data) -> dict:
    """A task under `parent_id` (404 when the parent is missing or out of scope; 400 on an empty title)."""
    parent = load_task(ctx, parent_id)
    title = (data.title or "").strip()
    if not title:
        raise BadRequest("title is required", details=[{"field": "title", "message": "title is required"}])
    fields = {"title": title}
    for name in ("assignee_id", "due_date"):
        if name in data.model_fields_set:
            fields[name] = getattr(data, name)
    return create_task(ctx, data=TaskCreate(**fields), parent=parent)


# --- the client portal (company-scoped by the portal; private tasks never shown) ----------------------------

PORTAL_TASK_FIELDS = ("id", "title", "description", "parent_task_id", "due_date", "start_date", "created_at",
                      "updated_at")


@cache
def _portal_aliases():
    """The type, priority and status items of `portal_tasks`, aliased once per process (an alias proxies its
    table's columns on first use); built on the portal's first call, not at import."""
    from sqlalchemy.orm import aliased

    return (aliased(ConfigListItem, name="portal_kind"), aliased(ConfigListItem, name="portal_priority"),
            aliased(ConfigListItem, name="portal_status"))


def _under_a_private_task(*tasks):
    """A SELECT of the ids of the tasks matching `tasks` (clauses on Task) that have a private task among their
    ancestors, at any depth (subtasks nest: one recursive CTE walking up `parent_task_id`; UNION stops on a
    cycle)."""
    up = (select(Task.id.label("task_id"), Task.parent_task_id.label("up"))
          .where(*tasks, Task.parent_task_id.is_not(None))
          .cte("portal_ancestry", recursive=True))
    up = up.union(select(up.c.task_id, Task.parent_task_id).join(up, Task.id == up.c.up)
                  .where(Task.parent_task_id.is_not(None)))
    private = select(Task.id).where(Task.is_private.is_(True)).correlate(None)
    return select(up.c.task_id).where(up.c.up.in_(private)).correlate(None)


def portal_tasks(db, project_id: str) -> list[dict]:
    """The non-private tasks of a project (a subtask of a private task, at any depth, is private too), with
    status, priority, type and assignee, in list order, at most LIST_LIMIT (one query)."""
    kind, priority, status = _portal_aliases()
    in_project = (Task.resource_type == "project", Task.resource_id == project_id)
    stmt = (select(Task, status.label, status.value, status.color, priority.label, priority.value, kind.label,
                   User.name)
            .outerjoin(status, status.id == Task.status_id).outerjoin(priority, priority.id == Task.priority_id)
            .outerjoin(kind, kind.id == Task.type_id).outerjoin(User, User.id == Task.assignee_id)
            .where(*in_project, Task.is_private.is_(False), Task.id.not_in(_under_a_private_task(*in_project))))
    from .queries import list_order

    rows = db.execute(list_order(stmt).limit(LIST_LIMIT)).all()
    return [{**row_dict(task, PORTAL_TASK_FIELDS), "status_label": s_label, "status_value": s_value,
             "status_color": s_color, "priority_label": p_label, "priority_value": p_value, "type_label": k_label,
             "assignee_id": task.assignee_id, "assignee_name": assignee}
            for task, s_label, s_value, s_color, p_label, p_value, k_label, assignee in rows]


def portal_task_project(db, task_id: str) -> str | None:
    """The project of the task when the client portal shows it (`portal_tasks`: linked to a project, neither
    private nor under a private task at any depth), else None. One statement."""
    this = Task.id == task_id
    return db.scalar(select(Task.resource_id).where(this, Task.resource_type == "project", Task.resource_id.is_not(None),
                                                     Task.is_private.is_(False),
                                                     Task.id.not_in(_under_a_private_task(this))))


def portal_task_counts_select(project_ids):
    """The read of `portal_task_counts` (rows resource_id, total, done), for record_sets with other reads.
    `project_ids`: ids or a SELECT."""
    done = case((ConfigListItem.stage_type == "done", 1), else_=0)
    return (select(Task.resource_id, func.count(Task.id).label("total"), func.coalesce(func.sum(done), 0).label("done"))
            .outerjoin(ConfigListItem, ConfigListItem.id == Task.status_id)
            .where(Task.resource_type == "project", Task.resource_id.in_(project_ids),
                   Task.parent_task_id.is_(None), Task.is_private.is_(False))
            .group_by(Task.resource_id))


def portal_counts(rows) -> dict[str, dict[str, int]]:
    """`{project_id: {total, done, open}}` from rows of portal_task_counts_select (tuples or records)."""
    pairs = ((r["resource_id"], r["total"], r["done"]) if isinstance(r, dict) else tuple(r) for r in rows)
    return {pid: {"total": int(total), "done": int(finished), "open": int(total) - int(finished)}
            for pid, total, finished in pairs}


def portal_task_counts(db, project_ids) -> dict[str, dict[str, int]]:
    """`{project_id: {total, done, open}}` of the non-private top-level tasks of these projects (one grouped
    query; `done` counts the tasks whose status has stage_type `done`). `project_ids`: ids or a SELECT."""
    return portal_counts(db.execute(portal_task_counts_select(project_ids)).all())


def create_request_task(ctx, *, project_id: str, title: str, description: str | None, priority_id: str | None,
                        sla_policy_id: str | None, actor_label: str) -> str:
    """A client's request raised through the portal: a task in the project (default status, not private),
    history recorded, and the project's SLA assigned through the SLA area when it has a policy."""
    task = Task(title=title, description=description, resource_type="project", resource_id=project_id,
                priority_id=priority_id, status_id=default_status_id(ctx.db), is_private=False)
    ctx.db.add(task)
    ctx.db.flush()
    history.record(ctx.db, entity_type="task", entity_id=task.id, action="created", actor_id=None,
                   changes={"title": task.title, "source": actor_label})
    if sla_policy_id:
        from chalicelib.areas.sla import service as sla_service

        sla_service.assign_on_task_create(ctx, task, sla_policy_id)
    return task.id
