"""Roadmaps: the detail, create, update, delete, and items (scope and reads are in queries.py).

A roadmap may belong to a project (`project_id`, a project the caller can see: 400 otherwise).
Scoping: a roadmap of a project is seen by whoever sees the project; one without a project by every
holder of roadmaps:view. An item's `goal_id` must be a goal of the roadmap's project (400). The
detail lists the tasks linked to the items (`tasks.roadmap_item_id`) that the caller can see.
A roadmap holds at most ITEM_LIMIT (500) items. Other areas (projects, tasks) are reached through
their `service`, imported where it is needed.
"""
from __future__ import annotations

from dataclasses import replace

from sqlalchemy import select, update

from chalicelib.core.errors import BadRequest, Conflict, NotFound
from chalicelib.core.locks import lock_row
from chalicelib.core.query import Page, in_scope, record_page

from .models import Roadmap, RoadmapItem
from .queries import (ITEM_LIMIT, item_count, item_counts_select, item_records, load_roadmap, load_roadmap_item,
                      roadmap_items, roadmap_record, roadmap_select, visible, with_item_counts)


def list_roadmaps(ctx, query) -> Page:
    """The roadmaps the caller may see (filter project_id), newest first; one page with the total."""
    stmt = in_scope(roadmap_select(), visible(ctx.principal))
    if query.project_id:
        stmt = stmt.where(Roadmap.project_id == query.project_id)
    page, sets = record_page(ctx.db, stmt.order_by(Roadmap.created_at.desc(), Roadmap.id), query,
                             lookups=lambda records: {"counts": item_counts_select(ctx.db, [r["id"] for r in records])})
    return replace(page, items=with_item_counts(page.items, sets["counts"]))


def get_roadmap(ctx, *, roadmap_id: str) -> tuple[dict, list[dict], list[dict]]:
    """(roadmap record, item records, the linked tasks the caller can see)."""
    from chalicelib.areas.tasks import service as tasks_service

    load_roadmap(ctx, roadmap_id)
    items = roadmap_items(ctx.db, roadmap_id)
    tasks = tasks_service.roadmap_item_tasks(ctx, [item.id for item in items])
    return roadmap_record(ctx, roadmap_id), item_records(ctx.db, items), tasks


def _require_project(ctx, project_id: str) -> None:
    from chalicelib.areas.projects import service as projects_service

    try:
        projects_service.link_project(ctx, project_id)  # waits for a delete of the project in progress
    except NotFound as exc:
        raise BadRequest("project_id must be a project you can see",
                         details=[{"field": "project_id", "message": "must be a project you can see"}]) from exc


def _check_dates(start, end) -> None:
    if start is not None and end is not None and end < start:
        raise BadRequest("end_date must not be before start_date",
                         details=[{"field": "end_date", "message": "must not be before start_date"}])


def create_roadmap(ctx, *, data) -> dict:
    values = data.model_dump()
    if values["project_id"]:
        _require_project(ctx, values["project_id"])
    roadmap = Roadmap(**values, created_by=ctx.user_id)
    ctx.db.add(roadmap)
    ctx.db.flush()
    return roadmap_record(ctx, roadmap.id)


def update_roadmap(ctx, *, roadmap_id: str, data) -> dict:
    """Moving a roadmap to another project (or none) clears its items' goals, which were the old project's."""
    roadmap = load_roadmap(ctx, roadmap_id)
    lock_row(ctx.db, Roadmap, roadmap.id, missing="Roadmap")  # the dates and the project move are checked on the current row
    changes = data.changes()
    _check_dates(changes.get("start_date", roadmap.start_date), changes.get("end_date", roadmap.end_date))
    if "project_id" in changes and changes["project_id"] != roadmap.project_id:
        if changes["project_id"]:
            _require_project(ctx, changes["project_id"])
        ctx.db.execute(update(RoadmapItem).where(RoadmapItem.roadmap_id == roadmap.id)
                       .values(goal_id=None).execution_options(synchronize_session=False))
    for key, value in changes.items():
        setattr(roadmap, key, value)
    ctx.db.flush()
    ctx.db.expire_all()
    return roadmap_record(ctx, roadmap.id)


def delete_roadmap(ctx, *, roadmap_id: str) -> None:
    """Deletes the roadmap and its items; tasks linked to the items lose `roadmap_item_id` (tasks area)."""
    from chalicelib.areas.tasks import service as tasks_service

    roadmap = load_roadmap(ctx, roadmap_id)
    item_ids = list(ctx.db.scalars(select(RoadmapItem.id).where(RoadmapItem.roadmap_id == roadmap.id)))
    tasks_service.clear_roadmap_items(ctx.db, item_ids)
    ctx.db.delete(roadmap)
    ctx.db.flush()


def project_deleted(db, project_id: str) -> None:
    """The project is being deleted: its roadmaps and their items go with it, and the tasks linked to those items
    lose `roadmap_item_id` (tasks area), as a roadmap delete does. Two statements here (the items deleted, their
    ids answered; then the roadmaps), one in the tasks area when there were items, whatever their number."""
    from sqlalchemy import delete

    from chalicelib.areas.tasks import service as tasks_service

    of_project = select(Roadmap.id).where(Roadmap.project_id == project_id)
    item_ids = list(db.scalars(delete(RoadmapItem).where(RoadmapItem.roadmap_id.in_(of_project))
                               .returning(RoadmapItem.id).execution_options(synchronize_session=False)))
    tasks_service.clear_roadmap_items(db, item_ids)
    db.execute(delete(Roadmap).where(Roadmap.project_id == project_id).execution_options(synchronize_session=False))


# ---------------------------------------------------------------- items

def _check_goal(ctx, roadmap: Roadmap, goal_id: str | None) -> None:
    from chalicelib.areas.projects import service as projects_service

    if not goal_id:
        return
    goal = projects_service.goal_briefs(ctx.db, [goal_id]).get(goal_id)
    if goal is None or roadmap.project_id is None or goal["project_id"] != roadmap.project_id:
        raise BadRequest("goal_id must be a goal of the roadmap's project",
                         details=[{"field": "goal_id", "message": "must be a goal of the roadmap's project"}])


def create_item(ctx, *, roadmap_id: str, data) -> dict:
    roadmap = load_roadmap(ctx, roadmap_id)
    lock_row(ctx.db, Roadmap, roadmap.id, missing="Roadmap")  # concurrent adds cannot pass the cap together
    if item_count(ctx.db, roadmap.id) >= ITEM_LIMIT:
        raise Conflict(f"A roadmap holds at most {ITEM_LIMIT} items")
    values = data.model_dump()
    _check_goal(ctx, roadmap, values["goal_id"])
    item = RoadmapItem(roadmap_id=roadmap.id, **values)
    ctx.db.add(item)
    ctx.db.flush()
    return item_records(ctx.db, [item])[0]


def update_item(ctx, *, roadmap_id: str, item_id: str, data) -> dict:
    """The dates and the goal are checked on the current rows: the roadmap's row is locked (a project move waits,
    or is waited for) and then the item's, both re-read, so an update that waited for another write checks the
    other date and the project that write left."""
    roadmap = load_roadmap(ctx, roadmap_id)
    lock_row(ctx.db, Roadmap, roadmap.id, missing="Roadmap")
    item = lock_row(ctx.db, RoadmapItem, item_id, where=RoadmapItem.roadmap_id == roadmap.id, missing="Roadmap item")
    changes = data.changes()
    _check_dates(changes.get("start_date", item.start_date), changes.get("end_date", item.end_date))
    if "goal_id" in changes and changes["goal_id"] != item.goal_id:
        _check_goal(ctx, roadmap, changes["goal_id"])
    for key, value in changes.items():
        setattr(item, key, value)
    ctx.db.flush()
    return item_records(ctx.db, [item])[0]


def delete_item(ctx, *, roadmap_id: str, item_id: str) -> None:
    from chalicelib.areas.tasks import service as tasks_service

    roadmap = load_roadmap(ctx, roadmap_id)
    item = load_roadmap_item(ctx, roadmap.id, item_id)
    tasks_service.clear_roadmap_items(ctx.db, [item.id])
    ctx.db.delete(item)
    ctx.db.flush()


# ---- for other areas (tasks) ----------------------------------------------------------------------

def visible_item_exists(ctx, item_id: str) -> bool:
    """Whether the roadmap item exists in a roadmap the caller can see (one query): a task may name only such
    an item."""
    stmt = select(RoadmapItem.id).join(Roadmap, Roadmap.id == RoadmapItem.roadmap_id).where(RoadmapItem.id == item_id)
    return ctx.db.scalar(in_scope(stmt, visible(ctx.principal))) is not None


# ---------------------------------------------------------------- the client portal

def portal_roadmap(db, project_id: str) -> tuple[dict | None, list[dict]]:
    """The project's newest roadmap and its items in position order (the portal checked the project's
    company); (None, []) when it has none. Two queries."""
    from chalicelib.core.serialize import value_out

    roadmap = db.scalar(select(Roadmap).where(Roadmap.project_id == project_id)
                        .order_by(Roadmap.created_at.desc(), Roadmap.id).limit(1))
    if roadmap is None:
        return None, []
    items = db.scalars(select(RoadmapItem).where(RoadmapItem.roadmap_id == roadmap.id)
                       .order_by(RoadmapItem.position, RoadmapItem.created_at, RoadmapItem.id).limit(ITEM_LIMIT))
    fields = ("id", "title", "description", "area", "start_date", "end_date", "color", "position")
    return ({f: value_out(getattr(roadmap, f)) for f in ("id", "name", "description", "project_id", "start_date",
                                                         "end_date")},
            [{f: value_out(getattr(i, f)) for f in fields} for i in items])
