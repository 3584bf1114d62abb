"""Tasks: list, detail, create, duplicate, update, delete, history.

The check of what a write names (`check_references`) lives in service_references.py; todos in service_todos.py;
watchers and attached links in service_links.py; the functions the projects, sprints and roadmaps areas call
(`project_tasks`, `sprint_board`, `project_deleted`, `roadmap_item_tasks`, `clear_roadmap_items`,
`project_task_counts`) and the deals area's (`deal_deleted`, `company_deleted`) in service_planning.py, and the
portal's (`portal_tasks`, `portal_task_project`, `portal_task_counts`, `portal_task_counts_select`, `portal_counts`,
`create_request_task`) and the projects area's `move_request_watch` in service_portal.py; the hourly due-soon notice
(jobs.py's `due_soon`) in service_due.py.
Other areas reach them all through this module, which imports them.
"""
from __future__ import annotations

from dataclasses import replace

from sqlalchemy import bindparam, case, func, or_, select

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_later, lock_key, lock_row
from chalicelib.core.models import ConfigListItem, Squad, User
from chalicelib.core.query import LIST_LIMIT, Page, Read, contains_text, record_page, record_rows, template, tree_ids
from chalicelib.core.schemas import comma_values
from chalicelib.core.serialize import clipped, value_out
from chalicelib.core.spelling import composed
from chalicelib.core.timeutil import org_today, week_bounds

from .models import Task, TaskWatcher
from .queries import (TASK_FIELDS, TASK_FLAGS, default_status_id, is_open, list_order, load_task, task_lookups,
                      task_readers, task_records, task_row, task_select, visible, with_task_lookups)
from .queries import task_seen_by, visible_task_exists  # noqa: F401 - other areas check their task references through the service
from .queries import tasks_readers  # noqa: F401 - the SLA breach scan tells only assignees who may read their task
from .queries import visible_task_titles  # noqa: F401 - other areas name tasks only in the caller's scope
from .schemas import TaskCreate, TaskListQuery, TaskUpdate
from .service_planning import (clear_roadmap_items, company_deleted, config_item_tasks,  # noqa: F401 - other areas call it through the service
                               deal_deleted, project_deleted, project_manager, project_task_counts, project_tasks,
                               roadmap_item_tasks, sprint_board)
from .service_portal import (create_request_task, move_request_watch, portal_counts,  # noqa: F401 - other areas call it through the service
                             portal_task_counts, portal_task_counts_select, portal_task_project, portal_tasks,
                             rederive_request_watches)
from .service_references import check_references, copied_links, dated_approval
from .service_todos import todo_select


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
        # a name in any letter case, as squad names are unique (session 32: the projects filter compared so, this one
        # exactly, and `?squad=red` listed none of "Red"'s tasks)
        members = select(User.id).join(Squad, Squad.id == User.squad_id).where(
            or_(Squad.id.in_(squads), func.lower(Squad.name).in_([composed(name).lower() for name in squads])))
        stmt = stmt.where(Task.assignee_id.in_(members))
    if query.resource_type and query.resource_type.strip():  # blank, as empty: no filter (it matched nothing)
        stmt = stmt.where(Task.resource_type == query.resource_type.strip())
    if query.resource_id and query.resource_id.strip():
        stmt = stmt.where(Task.resource_id == query.resource_id.strip())
    if query.roadmap_item_id and query.roadmap_item_id.strip():
        stmt = stmt.where(Task.roadmap_item_id == query.roadmap_item_id.strip())
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
        stmt = stmt.where(Task.due_date < today, is_open())
    if query.search and query.search.strip():
        term = query.search.strip()
        stmt = stmt.where(contains_text(term, Task.title, Task.description))
    page, sets = record_page(ctx.db, list_order(stmt), query, TASK_FLAGS,
                             lookups=lambda rows: task_lookups(ctx.db, rows, visible_to=ctx.principal))
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

    records, sets = task_records(ctx.db, rows, visible_to=ctx.principal, also={
        "todos": todo_select(task_id), "watchers": watcher_select(task_id),
        "agent": agents_service.agent_select(task_id)})
    return {"task": records[0], "todos": sets["todos"], "subtasks": records[1:], "watchers": sets["watchers"],
            "agent": sets["agent"][0] if sets["agent"] else None}


def subtask_page(ctx, task_id: str, query) -> Page:
    page, sets = record_page(ctx.db, _subtasks(ctx, task_id), query, TASK_FLAGS,
                             lookups=lambda rows: task_lookups(ctx.db, rows, visible_to=ctx.principal))
    return replace(page, items=with_task_lookups(page.items, sets))


@template
def _watcher_template():
    return (select(User.id, User.name, User.picture).join(TaskWatcher, TaskWatcher.user_id == User.id)
            .where(TaskWatcher.task_id == bindparam("watcher_task_id"))
            .order_by(TaskWatcher.created_at, User.name, User.id).limit(LIST_LIMIT))


def watcher_select(task_id: str) -> Read:
    """The task's watchers (id, name, picture), first watcher first."""
    return Read(_watcher_template(), {"watcher_task_id": task_id})



def task_history(ctx, *, task_id: str, query) -> Page:
    load_task(ctx, task_id)
    return history.entries(ctx.db, entity_type="task", entity_id=task_id, query=query)


# --- writes ---------------------------------------------------------------------------------------

def _notify_assigned(ctx, task: Task, *, reads: bool | None = None) -> None:
    """`task_assigned` to the new assignee unless they assigned it themselves. Called only when the task is made or
    its assignee really changes (under the task's row lock); core notify's 5-minute de-duplication applies, as
    document 3 states for every notification. The task's title, description and link go only to an assignee who
    may read it (`reads`: active with `tasks:view`, read by the create's or update's reference check; an assignee
    has their task in scope); any other is told "You were assigned a task" with the actor and nothing of the task,
    as `todo_assigned` tells a non-reader. `reads` None (a duplicate: its assignee is copied, not checked) asks
    queries.task_readers."""
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    if not task.assignee_id or task.assignee_id == ctx.user_id:
        return
    if reads is None:
        reads = task.assignee_id in task_readers(ctx.db, task.id, [task.assignee_id])
    told = ({"title": f"You were assigned a task: {task.title}",
             "body": clipped(task.description, 500) if task.description else None, "action_url": f"/tasks/{task.id}"}
            if reads else {"title": "You were assigned a task"})
    notify(ctx, user_id=task.assignee_id, type="task_assigned", resource_type="task", resource_id=task.id,
           actor_id=ctx.user_id, **told)


@template
def _watcher_ids_template():
    return select(TaskWatcher.user_id).where(TaskWatcher.task_id == bindparam("status_task_id"))


def _status_notice_title(task_title: str, label: str | None) -> str:
    """`"<task title>" moved to <status label>` (`... status cleared` when the status was cleared); a long task
    title is cut so that the status still shows within the column's 500 characters."""
    name = clipped(task_title, 280)
    return (f'"{name}" moved to {label}' if label else f'"{name}" status cleared')[:500]


def _notify_status_changed(ctx, task: Task, label: str | None) -> None:
    """`task_status_changed` to the task's assignee, reporter and watchers who may read it (queries.task_readers),
    except the caller, in one notify_many call. Called only when the task's status really changed (under its row
    lock); `label` is the new status's, read by the update's reference check. A fixed number of statements whatever
    the recipients: the watchers, the readers (two at most), core notify's claim, read and write."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    db = ctx.db
    watchers = db.scalars(_watcher_ids_template(), {"status_task_id": task.id}).all()
    people = [user_id for user_id in dict.fromkeys((task.assignee_id, task.reporter_id, *watchers))
              if user_id and user_id != ctx.user_id]
    readers = task_readers(db, task.id, people) if people else set()
    title = _status_notice_title(task.title, label)
    notify_many(ctx, [  # core notify's claim, one read and one write, whatever the number of recipients
        {"user_id": user_id, "type": "task_status_changed", "title": title, "resource_type": "task",
         "resource_id": task.id, "action_url": f"/tasks/{task.id}", "actor_id": ctx.user_id}
        for user_id in people if user_id in readers])


def ensure_agent_meta(db, task_id: str) -> None:
    """A task of type `agent_task` gets its agent meta record (document 1), made by the agents area."""
    from chalicelib.areas.agents import service as agents_service  # another area: imported lazily

    agents_service.ensure_agent_meta(db, task_id)


def _after_create(ctx, task: Task, *, assignee_reads: bool | None = None) -> None:
    history.record(ctx.db, entity_type="task", entity_id=task.id, action="created", actor_id=ctx.user_id,
                   changes={"title": task.title})
    _notify_assigned(ctx, task, reads=assignee_reads)
    if _is_agent_type(ctx.db, task.type_id):
        ensure_agent_meta(ctx.db, task.id)


def create_task(ctx, *, data: TaskCreate, parent: Task | None = None) -> dict:
    values = data.changes()
    values["title"] = data.title
    if parent is not None:
        values["parent_task_id"] = parent.id
    known = check_references(ctx, values)
    dated_approval(values, values)  # a create changes all it sends: an approver given without a time is dated now
    if not values.get("status_id"):
        values["status_id"] = default_status_id(ctx.db)
    if values.get("is_private") is None:
        values["is_private"] = False
    values.setdefault("reporter_id", ctx.user_id)
    # the INSERT rides with the next statement (the notice's read, or the COMMIT): a round trip less
    task = insert_later(ctx.db, Task, {**values, "created_by": ctx.user_id})
    _after_create(ctx, task, assignee_reads=task.assignee_id in known.tasks_viewers)
    _assign_project_sla(ctx, task)
    # the object holds every column (defaults applied): no reload, and a task created
    # just now has no subtasks or todos to count; the names the reference check read, and the caller's own,
    # need no lookup
    known.users.setdefault(ctx.user_id, {"name": ctx.principal.user.name, "picture": ctx.principal.user.picture})
    return task_records(ctx.db, [task], visible_to=ctx.principal, new=True, known=known)[0]


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
# The due-soon marker is not a field (not in TASK_FIELDS): the copy is a task of its own, told on its own. The links
# (parent, linked resource, roadmap item, sprint) are copied as a create would take them: one the caller cannot see,
# or whose record is gone, is left null (service_references.copied_links; session 24).
COPIED_FIELDS = [name for name in TASK_FIELDS if name not in ("id", "created_at", "updated_at", "status_id",
                                                              "reporter_id", "created_by", "title")]


COPY_SUFFIX = " (copy)"


def duplicate_task(ctx, *, task_id: str) -> dict:
    original = load_task(ctx, task_id)
    # the links are checked and share-locked as a create's: one hidden from the caller, or gone, is left null
    copy = Task(**{**{name: getattr(original, name) for name in COPIED_FIELDS}, **copied_links(ctx, original)})
    copy.title = original.title[:500 - len(COPY_SUFFIX)] + COPY_SUFFIX  # a 500-character title keeps its suffix
    copy.status_id = default_status_id(ctx.db)
    copy.reporter_id = ctx.user_id
    copy.created_by = ctx.user_id
    ctx.db.add(copy)
    ctx.db.flush()
    _after_create(ctx, copy)
    return task_row(ctx.db, copy.id, visible_to=ctx.principal)


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
    changed = {name: value for name, value in values.items() if value_out(value) != value_out(getattr(task, name))}
    known = check_references(ctx, changed, task_id=task.id, current=task)
    dated_approval(values, changed)  # a changed approver without a time of its own: the time follows it
    before = {name: getattr(task, name) for name in ("status_id", "assignee_id", "type_id", "resource_type",
                                                     "resource_id")}
    # what changes is written (with an approval's time that follows a changed approver): a value sent back as stored
    # is left (a Decimal set over an equal float counted as a change, and the row's UPDATE moved its time)
    for name, value in values.items():
        if name in changed or (name == "approved_at" and "approved_by_user_id" in changed):
            setattr(task, name, value)
    if changed:  # a record sent back as read is no edit: its time stays (session 25)
        task.updated_at = utcnow()
    ctx.db.flush()
    db = ctx.db
    if task.status_id != before["status_id"]:
        history.record(db, entity_type="task", entity_id=task.id, action="status_changed", actor_id=ctx.user_id,
                       changes={"status_id": {"from": before["status_id"], "to": task.status_id}})
        from chalicelib.areas.portal import service as portal_service  # a client's request: its requester is told

        portal_service.task_status_changed(ctx, task_id=task.id, title=task.title)
        # the new status was read by the reference check (a changed value is checked): its label needs no read
        _notify_status_changed(ctx, task, known.item(task.status_id)["label"])
    if task.assignee_id != before["assignee_id"]:
        history.record(db, entity_type="task", entity_id=task.id, action="assigned", actor_id=ctx.user_id,
                       changes={"assignee_id": {"from": before["assignee_id"], "to": task.assignee_id}})
        # the new assignee was read by the reference check (a changed value is checked), with whether they view tasks
        _notify_assigned(ctx, task, reads=task.assignee_id in known.tasks_viewers)
    if task.type_id != before["type_id"] and _is_agent_type(db, task.type_id):
        ensure_agent_meta(db, task.id)
    if task.resource_type == "project" and task.resource_id and \
            (task.resource_type, task.resource_id) != (before["resource_type"], before["resource_id"]):
        _request_moved(db, task)
    return task_row(db, task.id, visible_to=ctx.principal)


def _request_moved(db, task: Task) -> None:
    """A task moved into another project: when it is a client's request, its own watch (create_request_task's) goes
    to the manager it now derives (projects' `request_manager`, one read: the first active of the project's
    delivery manager, its client profile's, its owner and its company's owner; `move_request_watch`: two
    statements; a staff task is left as it is). Session 24: the first
    project's manager kept reading it and the new one answered 404."""
    from chalicelib.areas.projects import service as projects_service  # another area: imported lazily

    move_request_watch(db, manager_id=projects_service.request_manager(db, task.resource_id), task_id=task.id)


def delete_task(ctx, *, task_id: str) -> None:
    """The task goes with its subtasks at any depth (parent_task_id cascades); the notes of them all, and who submitted
    them through the portal, go too (the notes and portal areas; one statement each, riding with the task's DELETE:
    session 23, docs/decisions/notes.md)."""
    from chalicelib.areas.notes import service as notes_service  # other areas: imported lazily
    from chalicelib.areas.portal import service as portal_service

    task = load_task(ctx, task_id)
    doomed = _subtree_ids(task.id)  # read by the statements below, before the cascade takes the subtasks
    notes_service.records_deleted(ctx.db, "task", doomed)
    portal_service.records_deleted(ctx.db, "task", doomed)
    ctx.db.delete(task)
    ctx.db.flush()


def _subtree_ids(task_id: str):
    """SELECT of the task's id and its subtasks' at any depth (UNION: a cycle of parents cannot loop)."""
    return tree_ids(Task.id, Task.parent_task_id, Task.id == task_id, "deleted_tasks")




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
