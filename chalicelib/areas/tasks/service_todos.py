"""Task todos (checklist items): the whole set is replaced by one request."""
from __future__ import annotations

import uuid
from datetime import timedelta

from sqlalchemy import bindparam, delete, select

from chalicelib.core.errors import BadRequest
from chalicelib.core.ids import new_id, utcnow
from chalicelib.core.locks import insert_rows, lock_row
from chalicelib.core.models import User
from chalicelib.core.query import Read, record_rows, template

from .models import Task, TaskTodo
from .queries import load_task, task_readers
from .schemas import TodosReplace

MAX_TODOS = 500  # the replacement refuses more (schemas.TodosReplace), so the read never cuts a list
TODO_FIELDS = ("id", "task_id", "title", "is_done", "position", "assignee_id", "due_date", "created_at", "updated_at")


TODO_FLAGS = ("is_done",)


@template
def _todo_template():
    return (select(*(getattr(TaskTodo, name) for name in TODO_FIELDS), User.name.label("assignee_name"),
                   User.picture.label("assignee_picture"))
            .outerjoin(User, User.id == TaskTodo.assignee_id)
            .where(TaskTodo.task_id == bindparam("todo_task_id"))
            .order_by(TaskTodo.position, TaskTodo.created_at, TaskTodo.id)
            .limit(MAX_TODOS))


def todo_select(task_id: str) -> Read:
    """The task's todos in order with their assignee's name and picture (at most MAX_TODOS)."""
    return Read(_todo_template(), {"todo_task_id": task_id}, TODO_FLAGS)


def todo_records(db, task_id: str) -> list[dict]:
    return record_rows(db, todo_select(task_id))


def _canonical_uuid(value: str) -> bool:
    """Whether `value` is a UUID written as identifiers are answered (8-4-4-4-12 hex digits, lower case)."""
    try:
        return str(uuid.UUID(value)) == value
    except ValueError:
        return False


TODO_SENT = ("title", "is_done", "position", "assignee_id", "due_date")  # what a replace writes of a todo


def replace_todos(ctx, *, task_id: str, data: TodosReplace) -> list[dict]:
    """Entries without id are created, entries with id upserted, todos absent from the request deleted.
    `todo_assigned` goes to each user newly assigned a todo, unless that user is the caller; the todo's and the
    task's titles only to one who may read the task (queries.task_readers).

    The task row is locked first (core.locks.lock_row), so concurrent replacements run one after the
    other and the result is exactly one request's set. The set is written as one DELETE and one
    multi-row INSERT (ids and created_at of existing todos kept), whatever the number of todos."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    load_task(ctx, task_id)
    task = lock_row(ctx.db, Task, task_id, missing="Task")
    db = ctx.db
    entries = data.todos
    ids = [entry.id for entry in entries if entry.id]
    if len(ids) != len(set(ids)):
        seen: set[str] = set()
        repeated = []
        for index, entry in enumerate(entries):
            if entry.id and entry.id in seen:
                repeated.append({"field": f"todos.{index}.id", "message": "names the same todo as an earlier entry"})
            seen.add(entry.id)
        raise BadRequest("A todo id appears twice in the request", details=repeated)
    assignees = {entry.assignee_id for entry in entries if entry.assignee_id}
    active: dict[str, bool] = {}
    if assignees:  # the assignees with their active flag, in one statement
        active = dict(db.execute(select(User.id, User.is_active).where(User.id.in_(assignees))).all())
        # each entry naming no user, as `todos.<index>.assignee_id` (the core's spelling of a list member's field, and
        # the inactive check's below): `todos.assignee_id` named no field of the body (session 32)
        missing = [{"field": f"todos.{index}.assignee_id", "message": "must be an existing user"}
                   for index, entry in enumerate(entries) if entry.assignee_id and entry.assignee_id not in active]
        if missing:
            raise BadRequest("Invalid todos", details=missing)
    existing = {row.id: row for row in db.execute(
        select(TaskTodo.id, TaskTodo.task_id, TaskTodo.assignee_id, TaskTodo.created_at, TaskTodo.title,
               TaskTodo.is_done, TaskTodo.position, TaskTodo.due_date, TaskTodo.updated_at)
        .where(TaskTodo.id.in_(ids)))} if ids else {}
    foreign = [{"field": f"todos.{index}.id", "message": "is a todo of another task"}
               for index, entry in enumerate(entries) if entry.id in existing and existing[entry.id].task_id != task.id]
    if foreign:
        raise BadRequest("A todo id belongs to another task", details=foreign)
    # a new todo keeps the id its entry names only when that is a UUID (decisions.md section 4)
    not_uuid = [{"field": f"todos.{index}.id", "message": "must be a UUID (lower case)"}
                for index, entry in enumerate(entries) if entry.id and entry.id not in existing
                and not _canonical_uuid(entry.id)]
    if not_uuid:
        raise BadRequest("A new todo's id must be a UUID", details=not_uuid)
    # a todo is work: a new one, or a new assignee, must be an active user; a todo of this task sent back with the
    # assignee it has is not checked again (its assignee may have been deactivated since)
    inactive = [{"field": f"todos.{index}.assignee_id", "message": "must be an active user"}
                for index, entry in enumerate(entries)
                if entry.assignee_id and not active[entry.assignee_id]
                and not (entry.id in existing and existing[entry.id].assignee_id == entry.assignee_id)]
    if inactive:
        raise BadRequest("A todo's assignee must be an active user", details=inactive)
    db.execute(delete(TaskTodo).where(TaskTodo.task_id == task.id).execution_options(synchronize_session=False))
    newly_assigned: list[tuple[str, str]] = []
    now = utcnow()
    rows = []
    for index, entry in enumerate(entries):
        previous = existing.get(entry.id) if entry.id else None
        row = {"id": entry.id or new_id(), "task_id": task.id, "title": entry.title, "is_done": entry.is_done,
               "position": entry.position if entry.position is not None else index,
               "assignee_id": entry.assignee_id, "due_date": entry.due_date,
               # new todos sent with one position keep the order they were sent in: each its own instant (s28)
               "created_at": previous.created_at if previous is not None else now + timedelta(microseconds=index),
               "updated_at": now}
        if previous is not None and all(row[key] == getattr(previous, key) for key in TODO_SENT):
            row["updated_at"] = previous.updated_at  # sent back as read: no edit (session 25, save-back audit)
        rows.append(row)
        previous_assignee = previous.assignee_id if previous is not None else None
        if entry.assignee_id and entry.assignee_id != previous_assignee and entry.assignee_id != ctx.user_id:
            newly_assigned.append((entry.assignee_id, entry.title))
    insert_rows(db, TaskTodo, rows)
    told = dict(newly_assigned)
    # the to-do's and the task's titles, and the link, only to an assignee who may read the task (a to-do may be
    # given to someone outside the task's scope); the others learn that they were given a to-do, and by whom
    readers = task_readers(db, task.id, list(told)) if told else set()
    notify_many(ctx, [  # one INSERT of notifications and one of deliveries, whatever the number of assignees
        {"user_id": user_id, "type": "todo_assigned", "resource_type": "task", "resource_id": task.id,
         "actor_id": ctx.user_id,
         **({"title": f"You were assigned a todo: {title}", "body": f"On task: {task.title}",
             "action_url": f"/tasks/{task.id}"} if user_id in readers else {"title": "You were assigned a todo"})}
        for user_id, title in told.items()])
    return todo_records(db, task.id)
