"""Tasks: the functions the client portal calls (company-scoped by the portal; private tasks never shown), reached
through service.py."""
from __future__ import annotations

from functools import cache

from sqlalchemy import and_, bindparam, case, delete, func, insert, literal, select

from chalicelib.core import history
from chalicelib.core.db import WRITE_LATER, UTCDateTime
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_later
from chalicelib.core.models import ConfigListItem, HistoryEntry, User
from chalicelib.core.query import template

from .models import Task, TaskWatcher
from .queries import default_status_id

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


def _filed_for(company_in):
    """WHERE clause on Task: the task is no client's request, or one filed by a company `company_in(column)` names
    (session 24: a project moved to another client listed the first client's requests, their title and description,
    to the new one). A request's company: its `task/created` history entry (written by create_request_task, no
    actor, `company_id` since session 24), else its portal submission (a request filed earlier with a portal user
    id); a request filed earlier without one is known by neither and follows its project, as staff tasks do."""
    from sqlalchemy import and_, exists, or_

    from chalicelib.areas.portal import service as portal_service

    named = HistoryEntry.changes["company_id"].as_string()
    recorded = _request_created().where(named.is_not(None))
    submitted, submitter = portal_service.submissions_select("task", Task.id)
    return or_(exists(recorded.where(company_in(named))), exists(submitted.where(company_in(submitter))),
               and_(~exists(recorded), ~exists(submitted)))


def portal_tasks(db, project_id: str, query, *, companies, top_level: bool = False, visible_to=None):
    """One page (core.query.Page, `query` a core.schemas.PageQuery) of the non-private tasks of a project (a subtask
    of a private task, at any depth, is private too) but the requests filed by a company other than `companies`
    (`_filed_for`), with status, priority, type and assignee (null for a deactivated user: the portal names no former
    staff, session 28), in list order: one statement, two when counted. Paged since session 23 (the portal answered
    at most LIST_LIMIT whole, and long descriptions made that a 413); the page's records are PORTAL_TASK_FIELDS and
    the labels. `top_level`: the tasks without a parent alone; `visible_to`: a principal, the tasks inside its task
    scope alone (`visible`). Both for the projects area's AI summary, which the portal shows too (session 28)."""
    from chalicelib.core.query import record_page

    from .queries import list_order, visible

    kind, priority, status = _portal_aliases()
    in_project = (Task.resource_type == "project", Task.resource_id == project_id)
    stmt = (select(*(getattr(Task, f) for f in PORTAL_TASK_FIELDS), status.label.label("status_label"),
                   status.value.label("status_value"), status.color.label("status_color"),
                   priority.label.label("priority_label"), priority.value.label("priority_value"),
                   kind.label.label("type_label"), Task.assignee_id, User.name.label("assignee_name"))
            .outerjoin(status, status.id == Task.status_id).outerjoin(priority, priority.id == Task.priority_id)
            .outerjoin(kind, kind.id == Task.type_id)
            # a former employee is not named to the client, as the portal's team and project records leave them out
            .outerjoin(User, (User.id == Task.assignee_id) & User.is_active.is_(True))
            .where(*in_project, Task.is_private.is_(False), Task.id.not_in(_under_a_private_task(*in_project)),
                   _filed_for(lambda column: column.in_(list(companies)))))
    if top_level:
        stmt = stmt.where(Task.parent_task_id.is_(None))
    if visible_to is not None:
        stmt = stmt.where(visible(visible_to))
    return record_page(db, list_order(stmt), query)


def portal_task_project(db, task_id: str) -> str | None:
    """The project of the task when the client portal shows it (`portal_tasks`: linked to a project, neither
    private nor under a private task at any depth), else None. One statement."""
    this = Task.id == task_id
    return db.scalar(select(Task.resource_id).where(this, Task.resource_type == "project", Task.resource_id.is_not(None),
                                                     Task.is_private.is_(False),
                                                     Task.id.not_in(_under_a_private_task(this))))


def portal_task_counts_select(project_ids, company_in, *, visible_to=None, hidden_from=None):
    """The read of `portal_task_counts` (rows resource_id, total, done), for record_sets with other reads.
    `project_ids`: ids or a SELECT; `company_in(column)`: the clause of the caller's companies (a request filed by
    another company is not counted: `_filed_for`). `visible_to`, `hidden_from`: principals; only the tasks inside the
    first's task scope (`visible`), and outside the second's, are counted: the projects area asks whether a reader
    sees every task its stored AI summary may have been built from (session 28)."""
    from sqlalchemy import Boolean, false, not_

    from .queries import done_stage, visible

    done = case((done_stage(), 1), else_=0)
    stmt = (select(Task.resource_id, func.count(Task.id).label("total"), func.coalesce(func.sum(done), 0).label("done"))
            .outerjoin(ConfigListItem, ConfigListItem.id == Task.status_id)
            .where(Task.resource_type == "project", Task.resource_id.in_(project_ids),
                   Task.parent_task_id.is_(None), Task.is_private.is_(False), _filed_for(company_in))
            .group_by(Task.resource_id))
    if visible_to is not None:
        stmt = stmt.where(visible(visible_to))
    if hidden_from is not None:
        # the scope clause is NULL, not false, on a task whose compared columns are (no assignee): NOT of it is NULL too
        stmt = stmt.where(not_(func.coalesce(visible(hidden_from), false(), type_=Boolean())))
    return stmt


def portal_counts(rows) -> dict[str, dict[str, int]]:
    """`{project_id: {total, done, open}}` from rows of portal_task_counts_select (tuples or records)."""
    pairs = ((r["resource_id"], r["total"], r["done"]) if isinstance(r, dict) else tuple(r) for r in rows)
    return {pid: {"total": int(total), "done": int(finished), "open": int(total) - int(finished)}
            for pid, total, finished in pairs}


def portal_task_counts(db, project_ids, *, companies) -> dict[str, dict[str, int]]:
    """`{project_id: {total, done, open}}` of the non-private top-level tasks of these projects but the requests
    filed by a company other than `companies` (one grouped query; `done` counts the tasks whose status has
    stage_type `done`). `project_ids`: ids or a SELECT."""
    return portal_counts(db.execute(portal_task_counts_select(
        project_ids, lambda column: column.in_(list(companies)))).all())


@template
def _request_watcher_template():
    """The delivery manager as a watcher of a request's task, when they are an active user: an INSERT ... SELECT
    from users (a deactivated manager, or an id naming nobody, adds no row and fails nothing). Built once."""
    values = select(bindparam("watcher_row_id", type_=TaskWatcher.id.type),
                    bindparam("watcher_task_id", type_=TaskWatcher.task_id.type), User.id,
                    bindparam("watcher_at", type_=UTCDateTime())).where(
        User.id == bindparam("watcher_user_id", type_=User.id.type), User.is_active.is_(True))
    return insert(TaskWatcher.__table__).from_select(["id", "task_id", "user_id", "created_at"], values)


def create_request_task(ctx, *, project_id: str | None, title: str, description: str | None, priority_id: str | None,
                        sla_policy_id: str | None, actor_label: str, watcher_id: str | None = None,
                        company_id: str | None = None) -> str:
    """A client's request raised through the portal: a task in the project, or of the company when the request names
    no project (document 3 makes `projectId` optional; no project, no SLA policy) (default status, not private),
    history recorded, the project's SLA assigned through the SLA area when it has a policy, and `watcher_id` (the
    delivery manager the portal tells of it) made a watcher when active, so that they may open the task the notice
    links and find it in their lists (the task has no assignee, reporter or creator: without it only head and
    executive saw it). That watch is the request's own, marked by its row id, the task's id (a watch a user makes
    has an id of its own): it follows the delivery manager (`move_request_watch`). The task's INSERT
    (`insert_later`, as the task create's), the history entry's and the watcher's leave with the request's next
    statement (core.db.WRITE_LATER): none costs a round trip of its own. `company_id`: the client company filing
    it, named by the history entry (the portal shows the request to it alone)."""
    resource = ("project", project_id) if project_id else ("company", company_id)
    task = insert_later(ctx.db, Task, {"title": title, "description": description, "resource_type": resource[0],
                                       "resource_id": resource[1], "priority_id": priority_id,
                                       "status_id": default_status_id(ctx.db), "is_private": False})
    # the company that filed it, always (portal_submissions has a row only when a portal user id was sent): the
    # portal lists and counts a request only to that company (`_filed_for`, session 24)
    history.record(ctx.db, entity_type="task", entity_id=task.id, action="created", actor_id=None,
                   changes={"title": task.title, "source": actor_label, "company_id": company_id})
    if watcher_id:
        # the row's id is the task's: the mark of the request's own watch (`move_request_watch`, session 24)
        ctx.db.execute(_request_watcher_template(), {"watcher_row_id": task.id, "watcher_task_id": task.id,
                                                     "watcher_user_id": watcher_id, "watcher_at": utcnow()},
                       execution_options=WRITE_LATER)
    if sla_policy_id:
        from chalicelib.areas.sla import service as sla_service

        sla_service.assign_on_task_create(ctx, task, sla_policy_id)
    return task.id


def _request_created():
    """The `created` history entry without an actor of the task (correlated to Task): written so by
    create_request_task alone, requests filed before session 24 included; a staff create names its actor."""
    return select(HistoryEntry.id).where(HistoryEntry.entity_type == "task", HistoryEntry.entity_id == Task.id,
                                         HistoryEntry.action == "created", HistoryEntry.actor_id.is_(None))


def _is_request():
    """WHERE clause on Task: the task is a client's request (`_request_created`)."""
    from sqlalchemy import exists

    return exists(_request_created())


def move_request_watch(db, *, manager_id: str | None, project_id: str | None = None,
                       task_id: str | None = None) -> None:
    """The request's own watch (the row create_request_task made, its id the task's) of the client requests of
    project `project_id` (its delivery manager changed), or of the request `task_id` (moved to another project),
    goes to `manager_id`, the manager they now derive (projects' `request_manager`: the first active of the
    project's delivery manager, its client profile's, its owner and its company's owner; None: nobody): the marked rows of anybody else are deleted (one DELETE), and `manager_id`, when an active user, gets a
    marked row on each request (one INSERT ... SELECT; a request they already watch by their own choice keeps that
    watch as it is, unmarked). A watch somebody made (POST /watch) is never touched: an old manager keeps one they
    chose. Two statements whatever the number of requests, both leaving with the request's next one (WRITE_LATER);
    a task that is no request is untouched (session 24, docs/decisions/tasks.md). A request filed before session 24
    has an unmarked watch: its old manager keeps it (it cannot be told from a chosen one), the new one is added.
    The caller holds the project's row lock (a manager change) or the task's (a move)."""
    where = (Task.id == task_id,) if task_id else (Task.resource_type == "project", Task.resource_id == project_id)
    where = (*where, _is_request())
    requests = select(Task.id).where(*where).correlate(None)
    marked = (TaskWatcher.id == TaskWatcher.task_id, TaskWatcher.task_id.in_(requests))
    others = (TaskWatcher.user_id != manager_id,) if manager_id else ()
    db.execute(delete(TaskWatcher).where(*marked, *others),
               execution_options={**WRITE_LATER, "synchronize_session": False})
    if not manager_id:
        return
    if db.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as insert_or_not
    else:
        from sqlalchemy.dialects.sqlite import insert as insert_or_not
    rows = (select(Task.id.label("watch_id"), Task.id.label("watch_task_id"), User.id,
                   literal(utcnow(), UTCDateTime()))
            .join(User, and_(User.id == manager_id, User.is_active.is_(True))).where(*where))
    db.execute(insert_or_not(TaskWatcher.__table__).from_select(["id", "task_id", "user_id", "created_at"], rows)
               .on_conflict_do_nothing(), execution_options=WRITE_LATER)


def rederive_request_watches(db, project_ids, company_ids=None) -> None:
    """The requests' own watches of these projects (`project_ids`: a list or a SELECT of ids) follow the manager
    each project derives now (projects' `request_manager_of`: the first active reader of tasks of its delivery
    manager, its client profile's, its owner and its company's owner), and those of the requests in no project of
    these companies (`company_ids`, likewise; session 26) their company's (`company_request_manager_of`), as
    `move_request_watch` makes them follow one: after an admin write that changed who is active or what they may
    read (review of session 25: a manager deactivated or back kept, or never got, the watch, so the one told of a
    breach could not read the request, and nobody was). A watch somebody chose is never touched. Two statements
    whatever the number of projects, companies and requests. `project_ids` None: every project of `company_ids` (a
    list), in which the company's half of the chain may be the one derived (a client profile's delivery manager
    changed, session 27: the clients area calls it so)."""
    from sqlalchemy import and_, or_

    if project_ids is None:
        from chalicelib.areas.projects import service as projects_service  # another area: imported lazily

        project_ids = projects_service.company_project_ids(company_ids)
    manager = request_manager_of_task()
    linked = and_(Task.resource_type == "project", Task.resource_id.in_(project_ids))
    if company_ids is not None:
        linked = or_(linked, and_(Task.resource_type == "company", Task.resource_id.in_(company_ids)))
    where = (linked, _is_request())
    stale = select(Task.id).where(*where, or_(manager.is_(None), manager != TaskWatcher.user_id))
    db.execute(delete(TaskWatcher).where(TaskWatcher.id == TaskWatcher.task_id, TaskWatcher.task_id.in_(stale)),
               execution_options={**WRITE_LATER, "synchronize_session": False})
    if db.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as insert_or_not
    else:
        from sqlalchemy.dialects.sqlite import insert as insert_or_not
    rows = select(Task.id.label("watch_id"), Task.id.label("watch_task_id"), manager,
                  literal(utcnow(), UTCDateTime())).where(*where, manager.is_not(None))
    db.execute(insert_or_not(TaskWatcher.__table__).from_select(["id", "task_id", "user_id", "created_at"], rows)
               .on_conflict_do_nothing(), execution_options=WRITE_LATER)


def request_manager_of_task():
    """A correlated scalar over `Task`: the manager a client's request derives, by what it is linked to (projects'
    `request_manager_of` for a project, `company_request_manager_of` for a company; null otherwise)."""
    from sqlalchemy import case

    from chalicelib.areas.projects import service as projects_service  # another area: imported lazily

    return case((Task.resource_type == "project", projects_service.request_manager_of(Task.resource_id)),
                (Task.resource_type == "company", projects_service.company_request_manager_of(Task.resource_id)),
                else_=None)
