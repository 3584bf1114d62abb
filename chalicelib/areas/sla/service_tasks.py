"""Service levels of tasks: assignment, respond, resolve, the breach notice, compliance and at-risk.

A task's SLA is seen by whoever sees the task (tasks' scoping: 404 otherwise). Deadlines come from the
policy's rule for the task's priority (400 when the task has no priority or the policy no rule for it).
Respond and resolve happen once each (409 the second time), under a lock on the assignment row. A breach
notifies (`sla_breach`) the first of the task's assignee, reporter and project's delivery manager who may read it
and did not mark it (session 25), once per assignment: on respond/resolve after a deadline, or from the `sla-breach-scan` job for deadlines passed
while still open (the deadline unmarked and the task open by tasks' `is_open`: a completed task has no open breach,
session 27). The same assignment sent back (policy, priority and start unchanged) is no edit (session 27).
"""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import and_, case, false, func, or_, select, update

from chalicelib.core.errors import BadRequest, Conflict, NotFound, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_row
from chalicelib.core.models import ConfigListItem, User
from chalicelib.core.query import LIST_LIMIT, in_scope
from chalicelib.core.serialize import flag, value_out

from .models import SlaPolicy, SlaPolicyRule, TaskSla

AT_RISK_WINDOW = timedelta(hours=4)
AT_RISK_LIMIT = 20


_HOUR = timedelta(hours=1)


def _past_open(done_at, deadline, now, task_open):
    """Not yet marked, its deadline passed and the task still open: the open breach compliance counts
    (`open_*_breaches`), the scan notices and the task's record reads as breached (session 26). `done_at`/`deadline`:
    columns of TaskSla or of a subquery over it; `task_open`: tasks' `is_open()` clause (a statement joining Task)
    or a column holding it. A task completed (its status's stage_type `done`) without the deadline marked is no
    open breach (session 27): tasks keep no completion time, so whether it was late is not known."""
    return and_(done_at.is_(None), deadline < now, task_open)


def _breached(stored, done_at, deadline, now, task_open):
    """The record's `*_breached`: the mark's stored flag, or open with its deadline passed."""
    return or_(stored.is_(True), _past_open(done_at, deadline, now, task_open))


def _promised_hours(start, deadline) -> float:
    """The hours promised at assignment: `assign` stores deadline = start + the rule's hours (wall-clock hours, no
    business calendar), so deadline - start gives them back (to the microsecond the deadline keeps)."""
    return (deadline - start) / _HOUR


def _sla_row(db, task_id: str):
    from chalicelib.areas.tasks import service as tasks_service

    now = utcnow()
    task_open = tasks_service.is_open()
    stmt = (select(TaskSla, SlaPolicy.name, ConfigListItem.label,
                   _breached(TaskSla.response_breached, TaskSla.responded_at, TaskSla.response_deadline, now,
                             task_open),
                   _breached(TaskSla.resolution_breached, TaskSla.resolved_at, TaskSla.resolution_deadline, now,
                             task_open))
            .join(SlaPolicy, SlaPolicy.id == TaskSla.policy_id)
            .join(tasks_service.Task, tasks_service.Task.id == TaskSla.task_id)
            .outerjoin(ConfigListItem, ConfigListItem.id == TaskSla.priority_id)
            .where(TaskSla.task_id == task_id))
    return db.execute(stmt).first()


def sla_record(db, task_id: str) -> dict | None:
    """The task's SLA record with policy_name, the hours promised at assignment and priority_label (one query);
    None. `response_hours`/`resolution_hours` are those of the stored deadlines (deadline - start), not the policy's
    current rule, which an sla:update holder may have edited or removed since (session 26). `*_breached`: the
    mark's flag, or not yet marked and past the deadline (compliance's `open_*_breaches` clause, same clock)."""
    row = _sla_row(db, task_id)
    if row is None:
        return None
    sla, policy_name, priority_label, response_breached, resolution_breached = row
    return {
        "id": sla.id, "task_id": sla.task_id, "policy_id": sla.policy_id, "priority_id": sla.priority_id,
        "created_at": value_out(sla.created_at), "response_deadline": value_out(sla.response_deadline),
        "resolution_deadline": value_out(sla.resolution_deadline), "responded_at": value_out(sla.responded_at),
        "resolved_at": value_out(sla.resolved_at), "response_met": flag(sla.responded_at is not None),
        "resolution_met": flag(sla.resolved_at is not None), "response_breached": flag(response_breached),
        "resolution_breached": flag(resolution_breached), "policy_name": policy_name,
        "response_hours": _promised_hours(sla.created_at, sla.response_deadline),
        "resolution_hours": _promised_hours(sla.created_at, sla.resolution_deadline), "priority_label": priority_label,
    }


def _load_task(ctx, task_id: str):
    """The task the caller may read: `tasks:view` and the task in their scope (tasks' `load_task`), 404 otherwise
    (session 29: the row scope alone let a holder of sla:view whose tasks permission is none read and mark any task's
    SLA)."""
    from chalicelib.areas.tasks import service as tasks_service

    if not ctx.principal.can("tasks", "view"):
        raise not_found("Task")
    return tasks_service.load_task(ctx, task_id)


def _task_scope(ctx, tasks_service):
    """The WHERE clause of the tasks the caller may read: none without `tasks:view` (session 29), else tasks' scope."""
    return tasks_service.visible(ctx.principal) if ctx.principal.can("tasks", "view") else false()


def get_task_sla(ctx, *, task_id: str) -> dict | None:
    task = _load_task(ctx, task_id)
    return sla_record(ctx.db, task.id)


def assign(ctx, task, policy_id: str, start: datetime | None = None) -> None:
    """Give `task` (loaded by the caller) the SLA of the policy, replacing any it has. Raises BadRequest when
    the policy does not exist, the task has no priority, or the policy has no rule for it.

    The assignment the task already has (the same policy, the task's priority it was made for and the same start:
    a record sent back as read, a retried PUT) is no edit (session 27): nothing is checked or written, so its
    marks, breach flags and breach notice stand. Only a change of policy, priority or start replaces it (and takes
    the policy's rule as it is then)."""
    start = start or task.created_at or utcnow()
    sla = ctx.db.scalar(select(TaskSla).where(TaskSla.task_id == task.id).with_for_update())
    if sla is not None and (sla.policy_id, sla.priority_id, sla.created_at) == (policy_id, task.priority_id, start):
        return
    policy = ctx.db.get(SlaPolicy, policy_id)
    if policy is None:
        raise BadRequest("policy_id must be an existing SLA policy",
                         details=[{"field": "policy_id", "message": "must be an existing SLA policy"}])
    if not task.priority_id:
        raise BadRequest("The task has no priority, so no SLA rule applies",
                         details=[{"field": "priority_id", "message": "the task needs a priority"}])
    rule = ctx.db.scalar(select(SlaPolicyRule).where(SlaPolicyRule.policy_id == policy.id,
                                                     SlaPolicyRule.priority_id == task.priority_id))
    if rule is None:
        raise BadRequest("The policy has no rule for the task's priority",
                         details=[{"field": "policy_id", "message": "has no rule for the task's priority"}])
    try:
        response_deadline = start + timedelta(hours=rule.response_hours)
        resolution_deadline = start + timedelta(hours=rule.resolution_hours)
    except OverflowError as exc:
        raise BadRequest("created_at is too late: the deadlines would pass year 9999",
                         details=[{"field": "created_at", "message": "deadlines would pass year 9999"}]) from exc
    if sla is None:
        sla = TaskSla(task_id=task.id)
        ctx.db.add(sla)
    sla.policy_id, sla.priority_id, sla.created_at = policy.id, task.priority_id, start
    sla.response_deadline, sla.resolution_deadline = response_deadline, resolution_deadline
    sla.responded_at = sla.resolved_at = sla.breach_notified_at = None
    sla.response_breached = sla.resolution_breached = False
    ctx.db.flush()


def assign_task_sla(ctx, *, task_id: str, data) -> dict:
    from chalicelib.areas.tasks import service as tasks_service

    task = _load_task(ctx, task_id)
    lock_row(ctx.db, tasks_service.Task, task.id, missing="Task")  # concurrent reassignments replace one another in turn
    assign(ctx, task, data.policy_id, data.created_at)
    return sla_record(ctx.db, task.id)


def _candidates(tasks_service):
    """The users a breach of a task may tell, in order, for a statement over Task: its assignee, its reporter and its
    project's delivery manager (tasks' `project_manager`: the request's derived manager; null for a projectless task
    or a project without an active one). Columns of the task and a correlated subquery: no join, no row more."""
    Task = tasks_service.Task
    return Task.assignee_id, Task.reporter_id, tasks_service.project_manager()


def _first_reader(candidates, readers, actor=None):
    """The first of `candidates` (assignee, reporter, manager) who may read the task and is not `actor`; None."""
    return next((user_id for user_id in candidates if user_id and user_id != actor and user_id in readers), None)


def _notify_breach(ctx, sla: TaskSla, task) -> None:
    """`sla_breach`, once per assignment, to the first of the task's assignee, reporter and project's delivery manager
    (`_candidates`; one read) who may read the task (tasks' `task_readers`: active, `tasks:view`, the task in their
    scope) and is not the caller who marked the late response or resolution (they know it: no notice goes to its
    actor), as tasks' due-soon notice falls back (session 25). The assignment is recorded as noticed, someone told
    or not."""
    from chalicelib.areas.tasks import service as tasks_service
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    if sla.breach_notified_at is not None:
        return
    sla.breach_notified_at = utcnow()
    candidates = ctx.db.execute(select(*_candidates(tasks_service)).where(tasks_service.Task.id == task.id)).one()
    wanted = {user_id for user_id in candidates if user_id and user_id != ctx.user_id}
    readers = tasks_service.task_readers(ctx.db, task.id, wanted) if wanted else set()
    recipient = _first_reader(candidates, readers, ctx.user_id)
    if recipient:
        notify(ctx, user_id=recipient, type="sla_breach", title=f"Service level breached: {task.title}",
               resource_type="task", resource_id=task.id, action_url=f"/tasks/{task.id}", actor_id=ctx.user_id)


def mark(ctx, *, task_id: str, what: str) -> bool:
    """Mark the response (`what` = "response") or the resolution met now; answers whether it was late."""
    task = _load_task(ctx, task_id)
    current = ctx.db.scalar(select(TaskSla.id).where(TaskSla.task_id == task.id))
    sla = lock_row(ctx.db, TaskSla, current) if current else None
    if sla is None:
        raise NotFound("No SLA is assigned to this task")
    done_at, deadline = ("responded_at", "response_deadline") if what == "response" else ("resolved_at",
                                                                                            "resolution_deadline")
    if getattr(sla, done_at) is not None:
        raise Conflict(f"The {what} is already marked met")
    now = utcnow()
    breached = now > getattr(sla, deadline)
    setattr(sla, done_at, now)
    setattr(sla, f"{what}_breached", breached)
    if breached:
        _notify_breach(ctx, sla, task)
    ctx.db.flush()
    return breached


def _open_breach(now, task_open):
    """Either deadline an open breach (`_past_open`), in a statement over TaskSla joining Task."""
    return or_(_past_open(TaskSla.responded_at, TaskSla.response_deadline, now, task_open),
               _past_open(TaskSla.resolved_at, TaskSla.resolution_deadline, now, task_open))


def compliance(ctx, *, policy_id: str | None) -> tuple[list[dict], list[dict]]:
    """Per policy (all, at most LIST_LIMIT by name, or the one named), counts over the assignments of tasks the
    caller can see; and the tasks with an open deadline in the next AT_RISK_WINDOW, soonest first, at most
    AT_RISK_LIMIT. Two statements."""
    from chalicelib.areas.tasks import service as tasks_service

    Task = tasks_service.Task
    now = utcnow()
    scope = _task_scope(ctx, tasks_service)

    def count(condition):
        return func.count(case((condition, 1)))

    # the task's openness (tasks' `is_open`) read with each assignment, for the open breaches
    slas = in_scope(select(TaskSla, tasks_service.is_open().label("task_open")).join(Task, Task.id == TaskSla.task_id),
                    scope).subquery()
    stmt = (select(SlaPolicy.id, SlaPolicy.name, func.count(slas.c.id),
                   count(slas.c.response_breached.is_(True)), count(slas.c.resolution_breached.is_(True)),
                   count(_past_open(slas.c.responded_at, slas.c.response_deadline, now, slas.c.task_open)),
                   count(_past_open(slas.c.resolved_at, slas.c.resolution_deadline, now, slas.c.task_open)))
            .outerjoin(slas, slas.c.policy_id == SlaPolicy.id)
            .group_by(SlaPolicy.id, SlaPolicy.name).order_by(func.lower(SlaPolicy.name), SlaPolicy.name, SlaPolicy.id).limit(LIST_LIMIT))
    if policy_id:
        stmt = stmt.where(SlaPolicy.id == policy_id)
    report = [{"policy_id": pid, "policy_name": name, "total": total, "response_breaches": rb,
               "resolution_breaches": sb, "open_response_breaches": orb, "open_resolution_breaches": osb}
              for pid, name, total, rb, sb, orb, osb in ctx.db.execute(stmt)]

    until = now + AT_RISK_WINDOW
    response_due = and_(TaskSla.responded_at.is_(None), TaskSla.response_deadline >= now,
                        TaskSla.response_deadline <= until)
    resolution_due = and_(TaskSla.resolved_at.is_(None), TaskSla.resolution_deadline >= now,
                          TaskSla.resolution_deadline <= until)
    # the sooner of the deadlines that are due (least() in CASE form: SQLite has no least())
    soonest = case((and_(response_due, resolution_due, TaskSla.resolution_deadline < TaskSla.response_deadline),
                    TaskSla.resolution_deadline),
                   (response_due, TaskSla.response_deadline), else_=TaskSla.resolution_deadline)
    risk = (select(Task.id, Task.title, TaskSla.response_deadline, TaskSla.resolution_deadline, SlaPolicy.name,
                   User.name)
            .join(TaskSla, TaskSla.task_id == Task.id).join(SlaPolicy, SlaPolicy.id == TaskSla.policy_id)
            .outerjoin(User, User.id == Task.assignee_id)
            .where(or_(response_due, resolution_due), tasks_service.is_open()))  # a completed task is at no risk
    if policy_id:
        risk = risk.where(TaskSla.policy_id == policy_id)
    risk = in_scope(risk, scope).order_by(soonest, Task.id).limit(AT_RISK_LIMIT)
    at_risk = [{"id": tid, "title": title, "response_deadline": value_out(rd), "resolution_deadline": value_out(sd),
                "policy_name": pname, "assignee_name": aname}
               for tid, title, rd, sd, pname, aname in ctx.db.execute(risk)]
    return report, at_risk


# ---- the job ------------------------------------------------------------------------------------

def scan_breaches(ctx) -> int:
    """Notify of every task whose SLA has a deadline passed while open and that was not yet noticed the first of its
    assignee, reporter and project's delivery manager who may read the task (as `_notify_breach`: tasks'
    `tasks_readers`, two statements at most; session 25); a fixed number of statements whatever the number of
    assignments: the read (locking the assignments, skipping those another run or a request holds: they are the next
    run's; the three candidates read in it), the readers, one UPDATE marking them all noticed, core notify's claim,
    read and write. Answers how many assignments were newly noticed (each is recorded as noticed, someone told or
    not)."""
    from chalicelib.core.lookup import among
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    from chalicelib.areas.tasks import service as tasks_service

    Task = tasks_service.Task
    now = utcnow()
    # the candidates (`_candidates`: assignee, reporter, manager) read in the same statement; only the assignments
    # are locked
    rows = ctx.db.execute(select(TaskSla.id, Task.id, Task.title, *_candidates(tasks_service))
                          .join(Task, Task.id == TaskSla.task_id)
                          .where(TaskSla.breach_notified_at.is_(None), _open_breach(now, tasks_service.is_open()))
                          .with_for_update(of=TaskSla, skip_locked=True)).all()
    if not rows:
        return 0
    # the rows are locked by the read: one UPDATE marks them all (an ORM change per row is flushed as one UPDATE
    # each, which pg8000 sends row by row); "fetch" keeps any copy in the session up to date (RETURNING, no
    # statement of its own)
    ctx.db.execute(update(TaskSla).where(among(ctx.db, TaskSla.id, [sla_id for sla_id, *_ in rows]))
                   .values(breach_notified_at=now).execution_options(synchronize_session="fetch"))
    wanted = {task_id: {user_id for user_id in candidates if user_id} for _sla, task_id, _title, *candidates in rows}
    wanted = {task_id: ids for task_id, ids in wanted.items() if ids}
    readers = tasks_service.tasks_readers(ctx.db, wanted) if wanted else {}
    told = [(task_id, title, _first_reader(candidates, readers.get(task_id, ())))
            for _sla, task_id, title, *candidates in rows]
    notify_many(ctx, [{"user_id": user_id, "type": "sla_breach", "title": f"Service level breached: {title}",
                       "resource_type": "task", "resource_id": task_id, "action_url": f"/tasks/{task_id}"}
                      for task_id, title, user_id in told if user_id])
    ctx.db.flush()
    return len(rows)
