"""Roadmaps: scoping, list, detail, create, update, delete, and items.

A roadmap may belong to a project (`project_id`, a project the caller can see: 400 otherwise).
Scoping: a roadmap of a project is seen by whoever sees the project; one without a project by every
holder of roadmaps:view. An item's `goal_id` must be a goal of the roadmap's project (400). The
detail lists the tasks linked to the items (`tasks.roadmap_item_id`) that the caller can see.
Other areas (projects, tasks) are reached through their `service`, imported where it is needed.
"""
from __future__ import annotations

from sqlalchemy import func, or_, select, update

from chalicelib.core.errors import BadRequest, NotFound
from chalicelib.core.locks import lock_row
from chalicelib.core.query import in_scope, visible_row
from chalicelib.core.serialize import row_dict

from .models import Roadmap, RoadmapItem

LIST_LIMIT = 500
ROADMAP_FIELDS = ("id", "name", "description", "project_id", "start_date", "end_date", "created_by", "created_at",
                  "updated_at")
ITEM_FIELDS = ("id", "roadmap_id", "title", "description", "goal_id", "area", "start_date", "end_date", "color",
               "position", "created_at", "updated_at")


def visibility(principal):
    """WHERE clause of the roadmaps the principal may see (None: all)."""
    from chalicelib.areas.projects import service as projects_service

    projects = projects_service.visible_project_ids(principal)
    if projects is None:
        return None
    return or_(Roadmap.project_id.is_(None), Roadmap.project_id.in_(projects))


def _visible(ctx, roadmap_id: str) -> Roadmap:
    return visible_row(ctx.db, Roadmap, roadmap_id, visibility(ctx.principal), "Roadmap")


def _item_count():
    return (select(func.count(RoadmapItem.id)).where(RoadmapItem.roadmap_id == Roadmap.id)
            .correlate(Roadmap).scalar_subquery().label("item_count"))


def _roadmap_out(roadmap: Roadmap, item_count: int) -> dict:
    return {**row_dict(roadmap, ROADMAP_FIELDS), "item_count": int(item_count or 0)}


def list_roadmaps(ctx, *, query) -> dict:
    stmt = in_scope(select(Roadmap, _item_count()), visibility(ctx.principal))
    if query.project_id:
        stmt = stmt.where(Roadmap.project_id == query.project_id)
    stmt = stmt.order_by(Roadmap.created_at.desc(), Roadmap.id).limit(LIST_LIMIT)
    return {"roadmaps": [_roadmap_out(roadmap, count) for roadmap, count in ctx.db.execute(stmt).all()]}


def _roadmap_record(ctx, roadmap_id: str) -> dict:
    roadmap, count = ctx.db.execute(select(Roadmap, _item_count()).where(Roadmap.id == roadmap_id)).one()
    return _roadmap_out(roadmap, count)


def _items_out(db, items: list[RoadmapItem]) -> list[dict]:
    from chalicelib.areas.projects import service as projects_service

    goals = projects_service.goal_briefs(db, [item.goal_id for item in items if item.goal_id])
    return [{**row_dict(item, ITEM_FIELDS), "goal_title": goals.get(item.goal_id, {}).get("title")}
            for item in items]


def get_roadmap(ctx, *, roadmap_id: str) -> dict:
    from chalicelib.areas.tasks import service as tasks_service

    _visible(ctx, roadmap_id)
    items = list(ctx.db.scalars(select(RoadmapItem).where(RoadmapItem.roadmap_id == roadmap_id)
                                .order_by(RoadmapItem.position, RoadmapItem.created_at, RoadmapItem.id)
                                .limit(LIST_LIMIT)))
    tasks = tasks_service.roadmap_item_tasks(ctx, [item.id for item in items])
    return {"roadmap": _roadmap_record(ctx, roadmap_id), "items": _items_out(ctx.db, items), "tasks": tasks}


def _require_project(ctx, project_id: str) -> None:
    from chalicelib.areas.projects import service as projects_service

    try:
        projects_service.visible_project(ctx, project_id)
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
    return {"roadmap": _roadmap_record(ctx, roadmap.id)}


def update_roadmap(ctx, *, roadmap_id: str, data) -> dict:
    """Moving a roadmap to another project (or none) clears its items' goals, which were the old project's."""
    roadmap = _visible(ctx, roadmap_id)
    lock_row(ctx.db, Roadmap, roadmap.id)  # the dates and the project move are checked on the current row
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
    return {"roadmap": _roadmap_record(ctx, roadmap.id)}


def delete_roadmap(ctx, *, roadmap_id: str) -> dict:
    """Deletes the roadmap and its items; tasks linked to the items lose `roadmap_item_id` (tasks area)."""
    from chalicelib.areas.tasks import service as tasks_service

    roadmap = _visible(ctx, roadmap_id)
    item_ids = list(ctx.db.scalars(select(RoadmapItem.id).where(RoadmapItem.roadmap_id == roadmap.id)))
    tasks_service.clear_roadmap_items(ctx.db, item_ids)
    ctx.db.delete(roadmap)
    ctx.db.flush()
    return {"ok": True}


# ---------------------------------------------------------------- items

def _check_goal(ctx, roadmap: Roadmap, goal_id: str | None) -> None:
    from chalicelib.areas.projects import service as projects_service

    if not goal_id:
        return
    goal = projects_service.goal_briefs(ctx.db, [goal_id]).get(goal_id)
    if goal is None or roadmap.project_id is None or goal["project_id"] != roadmap.project_id:
        raise BadRequest("goal_id must be a goal of the roadmap's project",
                         details=[{"field": "goal_id", "message": "must be a goal of the roadmap's project"}])


def _item(ctx, roadmap_id: str, item_id: str) -> RoadmapItem:
    item = ctx.db.scalar(select(RoadmapItem).where(RoadmapItem.id == item_id, RoadmapItem.roadmap_id == roadmap_id))
    if item is None:
        raise NotFound("Roadmap item not found")
    return item


def create_item(ctx, *, roadmap_id: str, data) -> dict:
    roadmap = _visible(ctx, roadmap_id)
    values = data.model_dump()
    _check_goal(ctx, roadmap, values["goal_id"])
    item = RoadmapItem(roadmap_id=roadmap.id, **values)
    ctx.db.add(item)
    ctx.db.flush()
    return {"item": _items_out(ctx.db, [item])[0]}


def update_item(ctx, *, roadmap_id: str, item_id: str, data) -> dict:
    roadmap = _visible(ctx, roadmap_id)
    item = _item(ctx, roadmap.id, item_id)
    changes = data.changes()
    _check_dates(changes.get("start_date", item.start_date), changes.get("end_date", item.end_date))
    if "goal_id" in changes and changes["goal_id"] != item.goal_id:
        _check_goal(ctx, roadmap, changes["goal_id"])
    for key, value in changes.items():
        setattr(item, key, value)
    ctx.db.flush()
    return {"item": _items_out(ctx.db, [item])[0]}


def delete_item(ctx, *, roadmap_id: str, item_id: str) -> dict:
    from chalicelib.areas.tasks import service as tasks_service

    roadmap = _visible(ctx, roadmap_id)
    item = _item(ctx, roadmap.id, item_id)
    tasks_service.clear_roadmap_items(ctx.db, [item.id])
    ctx.db.delete(item)
    ctx.db.flush()
    return {"ok": True}


# ---- for other areas (tasks) ----------------------------------------------------------------------

def visible_item_exists(ctx, item_id: str) -> bool:
    """Whether the roadmap item exists in a roadmap the caller can see (one query): a task may name only such
    an item."""
    stmt = select(RoadmapItem.id).join(Roadmap, Roadmap.id == RoadmapItem.roadmap_id).where(RoadmapItem.id == item_id)
    return ctx.db.scalar(in_scope(stmt, visibility(ctx.principal))) is not None
