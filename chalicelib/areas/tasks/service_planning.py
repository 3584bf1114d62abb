"""Tasks: the functions the projects, sprints and roadmaps areas call about a project's, a sprint's and a
roadmap's tasks, and the deals area's about a deleted deal's or company's (reached through service.py)."""
from __future__ import annotations

from sqlalchemy import func, literal_column, select, update as sql_update

from chalicelib.core.query import LIST_LIMIT, Page, paginate, record_rows
from chalicelib.core.schemas import PageQuery
from chalicelib.core.serialize import value_out

from .models import Task
from .queries import (TASK_FLAGS, Assignee, PriorityItem, StatusItem, is_open, list_order, task_records, task_select,
                      visible)

PROJECT_TASK_FIELDS = ("id", "title", "status_id", "priority_id", "assignee_id", "due_date", "sort_order",
                       "created_at")


def project_tasks(db, project_id: str, query, *, visible_to) -> Page:
    """Top-level tasks linked to a project (resource_type `project`) that the principal `visible_to` may see
    (the tasks' data scoping; None: every one, for a caller that scopes otherwise), with joined names and
    labels, in list order: sort_order, due_date (nulls last), created_at newest first (the portal reads a project's
    tasks through `portal_tasks`). One query. Dates and timestamps are ISO strings."""
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
    return paginate(db, list_order(stmt), query, lambda row: {key: value_out(value) for key, value in row._mapping.items()})


def sprint_board(ctx, sprint_id: str, project_id: str) -> tuple[list[dict], list[dict]]:
    """(sprint tasks, backlog tasks) the caller can see, as task records in list order, at most LIST_LIMIT
    each: the tasks planned into the sprint, and the top-level tasks of the sprint's project in no sprint and
    not done. Six statements whatever their number (two reads, two lookups each)."""
    from sqlalchemy import and_

    from .queries import visible

    sprint = record_rows(ctx.db, list_order(task_select().where(Task.sprint_id == sprint_id, visible(ctx.principal)))
                         .limit(LIST_LIMIT), TASK_FLAGS)
    backlog = record_rows(ctx.db, list_order(task_select().where(
        and_(Task.resource_type == "project", Task.resource_id == project_id, Task.sprint_id.is_(None),
             Task.parent_task_id.is_(None), is_open()),
        visible(ctx.principal))).limit(LIST_LIMIT), TASK_FLAGS)
    return (task_records(ctx.db, sprint, visible_to=ctx.principal),
            task_records(ctx.db, backlog, visible_to=ctx.principal))


def _unlink(db, resource_type: str, resource_id: str) -> None:
    """The tasks linked to this record become standalone (resource link cleared, one UPDATE). `updated_at` is
    left: the task itself was not edited."""
    db.execute(sql_update(Task).where(Task.resource_type == resource_type, Task.resource_id == resource_id)
               .values(resource_type=None, resource_id=None).execution_options(synchronize_session=False))


def project_deleted(db, project_id: str) -> None:
    """A deleted project's tasks become standalone (resource link cleared, one UPDATE): they are kept, with
    their subtasks, todos and history, but no longer name a project that answers 404 (a detail showing it as
    linked, a duplicate copying the dead link). `updated_at` is left: the task itself was not edited."""
    _unlink(db, "project", project_id)


def deal_deleted(db, deal_id: str) -> None:
    """A deleted deal's tasks become standalone, as a deleted project's (`project_deleted`; one UPDATE)."""
    _unlink(db, "deal", deal_id)


def company_deleted(db, company_id: str) -> None:
    """A deleted company's tasks (a portal request made without a project is one) become standalone, as a deleted
    project's (`project_deleted`; one UPDATE): kept, with their watchers, in no project and of no company."""
    _unlink(db, "company", company_id)


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


def project_manager():
    """A correlated scalar for another area's statement over `Task`: the manager a client's request in the task's
    project derives (`resource_type` project; projects' `request_manager_of`: the first active reader of tasks of
    the project's delivery manager, its client profile's, its owner and its company's owner), or, for a task of a
    company (session 26), the company's half of that chain (`company_request_manager_of`); null for another link or
    when none is. The SLA area tells them of the breach of a task nobody active is assigned (session 25); the
    projects area is reached through this one, since it calls the SLA area (tests/core/test_area_links.py)."""
    from .service_portal import request_manager_of_task

    return request_manager_of_task()  # session 26: a request in no project derives its company's too


CONFIG_COLUMNS = {"task_status": "status_id", "task_priority": "priority_id"}


def config_item_tasks(list_key: str, item_id: str):
    """A scalar count of the tasks naming config item `item_id` of list `list_key` (`task_status` or `task_priority`,
    the lists whose items the config lists area asks about: a task type or phase is a label, cleared with its item):
    the config lists area refuses to delete an item in use (session 25: a deleted status left its tasks with none,
    which counts as open, so completed tasks reopened)."""
    column = CONFIG_COLUMNS[list_key]
    return select(func.count()).select_from(Task).where(getattr(Task, column) == item_id).scalar_subquery()
