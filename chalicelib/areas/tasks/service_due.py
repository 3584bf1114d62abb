"""Tasks: the `task_due_soon` notice, sent by the hourly `task-due-soon` job (jobs.py).

A task is due soon when it has an assignee, a due date of today or tomorrow in ORG_TIMEZONE (core.timeutil.org_today)
and is still open (`queries.is_open`: no status, or a status whose stage_type is not `done`). Its assignee is told once
per assignment and due date: the task records the due date and assignee the notice was sent for
(`due_soon_noticed_for`, `due_soon_noticed_to`), so that a second run tells nobody and a new due date or a new assignee
is told again. An assignee who is not told (deactivated, or without `tasks:view`) gives way to the first reader among
the task's reporter and its project's delivery manager, once per due date (session 25). docs/decisions/tasks.md,
"Notifications".
"""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import and_, case, or_, select, update

from chalicelib.core.lookup import among
from chalicelib.core.timeutil import org_today

from .models import Task
from .queries import is_open, tasks_readers
from .service_planning import project_manager


def _not_yet_noticed():
    """The task's due date or assignee is not the one its notice was sent for (or none was sent)."""
    return or_(Task.due_soon_noticed_for.is_(None), Task.due_soon_noticed_to.is_(None),
               Task.due_soon_noticed_for != Task.due_date, Task.due_soon_noticed_to != Task.assignee_id)


def _fallback_told(row) -> bool:
    """A fallback (the reporter or the delivery manager) was already told of this due date: the marker names them."""
    return (row.due_soon_noticed_for == row.due_date
            and row.due_soon_noticed_to is not None
            and row.due_soon_noticed_to in (row.reporter_id, row.manager_id))


def notify_due_soon(ctx, *, limit: int, after: tuple | None = None) -> tuple[int, int, tuple | None]:
    """One batch of the job (jobs.due_soon): tell the assignee of each of the next `limit` tasks due soon and not yet
    told for its assignee and due date (`task_due_soon`), in (due date, id) order after the key `after`, and record
    it on the task. Answers (tasks read, notices sent, the key of the last task read: the next batch's `after`);
    fewer read than `limit` is the last batch. A fixed number of statements whatever the number of tasks: the due
    tasks (locked, skipping those another run or a request holds: they are the next run's; with their reporter and
    their project's delivery manager), their assignees' permissions, the fallbacks' readers (two at most, only when
    a task needs one), the marker's UPDATE, core notify's claim, read and write; one when nothing is due. `limit` is
    at most core notify's CLAIM_MOST, so that its claim of the batch's keys is made (session 23).

    Only an active assignee with `tasks:view` is told: an assignee always has their task in scope (`queries.visible`
    holds the tasks a user is assigned to, and every task for head and executive), so the scope is not asked again
    (`queries.task_readers` would ask it task by task). A task whose assignee is not told goes to the first reader
    (`queries.tasks_readers`: active, `tasks:view`, the task in their scope) among its reporter and its project's
    delivery manager (session 25: a leaver's task was skipped silently every run and its deadline passed unseen);
    the marker then names that user, so they are told once per due date, and the assignee is still told on a later
    run if they become able to read it while the task is due soon (the marker is not theirs). A task nobody may be
    told of gets no marker (the key `after` keeps the next batch of the same run from reading it again)."""
    from chalicelib.core.auth import principals_of
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    db = ctx.db
    today = org_today()
    tomorrow = today + timedelta(days=1)
    stmt = (select(Task.id, Task.title, Task.assignee_id, Task.due_date, Task.reporter_id,
                   project_manager().label("manager_id"), Task.due_soon_noticed_for, Task.due_soon_noticed_to)
            .where(Task.assignee_id.is_not(None), Task.due_date.in_((today, tomorrow)), is_open(), _not_yet_noticed()))
    if after is not None:
        stmt = stmt.where(or_(Task.due_date > after[0], and_(Task.due_date == after[0], Task.id > after[1])))
    due = db.execute(stmt.order_by(Task.due_date, Task.id).limit(limit)
                     .with_for_update(of=Task, skip_locked=True)).all()
    if not due:
        return 0, 0, after
    last = (due[-1].due_date, due[-1].id)
    readers = {user_id for user_id, principal in principals_of(db, [row.assignee_id for row in due]).items()
               if principal.can("tasks", "view")}
    told = [(row, row.assignee_id) for row in due if row.assignee_id in readers]
    # the others: their reporter or their project's delivery manager, unless one was told of this due date already
    wanted = {row.id: {user_id for user_id in (row.reporter_id, row.manager_id) if user_id}
              for row in due if row.assignee_id not in readers and not _fallback_told(row)}
    wanted = {task_id: ids for task_id, ids in wanted.items() if ids}
    if wanted:
        may_read = tasks_readers(db, wanted)
        for row in due:
            fallback = next((user_id for user_id in (row.reporter_id, row.manager_id)
                             if user_id and user_id in may_read.get(row.id, ())), None)
            if fallback:
                told.append((row, fallback))
    if not told:
        return len(due), 0, last
    # the rows are locked: the marker takes the due date read above and the user told (the assignee, or the fallback
    # named task by task in a CASE); `updated_at` is left (not an edit)
    fallbacks = {row.id: user_id for row, user_id in told if user_id != row.assignee_id}
    db.execute(update(Task).where(among(db, Task.id, [row.id for row, _ in told]))
               .values(due_soon_noticed_for=Task.due_date,
                       due_soon_noticed_to=(case(fallbacks, value=Task.id, else_=Task.assignee_id) if fallbacks
                                            else Task.assignee_id),
                       updated_at=Task.updated_at)
               .execution_options(synchronize_session=False))
    notify_many(ctx, [  # core notify's claim, one read and one write, whatever the number of tasks
        {"user_id": user_id, "type": "task_due_soon",
         "title": f"Due {'today' if row.due_date == today else 'tomorrow'}"
                  f"{'' if user_id == row.assignee_id else ', its assignee cannot be told'}: {row.title}",
         "resource_type": "task", "resource_id": row.id, "action_url": f"/tasks/{row.id}"}
        for row, user_id in told])
    return len(due), len(told), last
