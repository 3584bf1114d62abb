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
from chalicelib.core.query import LIST_LIMIT, Page, in_scope, record_page

from .models import Roadmap, RoadmapItem
from .queries import (ITEM_LIMIT, item_count, item_counts_select, item_records, item_select, load_roadmap,
                      roadmap_items, roadmap_record, roadmap_select, visible, with_goal_titles, with_item_counts)


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
    # a task is seen with `tasks:view` and inside the caller's task scope (session 29: the scope alone was asked)
    tasks = tasks_service.roadmap_item_tasks(ctx, [item.id for item in items]) if ctx.can("tasks", "view") \
        else Page([], 0, LIST_LIMIT, 0)
    return roadmap_record(ctx, roadmap_id), item_records(ctx.db, items, titles=_sees_goals(ctx)), tasks


def _sees_goals(ctx) -> bool:
    """Whether the caller may read a project's goals (their titles on items, a goal named by an item): `projects:view`
    (session 29: a holder of roadmaps:view whose projects permission is none was told them)."""
    return ctx.can("projects", "view")


def list_items(ctx, *, roadmap_id: str, query) -> Page:
    """One page of the roadmap's items in the detail's order, with their goal titles (session 23: the detail cuts
    its items to what fits a Lambda answer; the rest are read here)."""
    load_roadmap(ctx, roadmap_id)
    page = record_page(ctx.db, item_select(roadmap_id), query)
    return replace(page, items=with_goal_titles(ctx.db, page.items, titles=_sees_goals(ctx)))


def _require_project(ctx, project_id: str) -> None:
    from chalicelib.areas.projects import service as projects_service

    try:
        # projects:view and the row scope (session 29); waits for a delete of the project in progress
        projects_service.link_project(ctx, project_id)
    except NotFound as exc:
        raise BadRequest("project_id must be a project you can see",
                         details=[{"field": "project_id", "message": "must be a project you can see"}]) from exc


def _check_dates(start, end, sent=("end_date",)) -> None:
    """400 when the dates after the write end before they start, naming the date the request sent (`sent`, the keys
    of its changes): `end_date` when it gives one, else `start_date`, moved past the stored end (session 32: that
    named `end_date`, a field the request did not send; as tasks and invoices name it since session 28)."""
    if start is None or end is None or end >= start:
        return
    if "end_date" in sent or "start_date" not in sent:
        raise BadRequest("end_date must not be before start_date",
                         details=[{"field": "end_date", "message": "must not be before start_date"}])
    raise BadRequest("start_date must not be after end_date",
                     details=[{"field": "start_date", "message": "must not be after end_date"}])


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
    _check_dates(changes.get("start_date", roadmap.start_date), changes.get("end_date", roadmap.end_date), changes)
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
    """Deletes the roadmap and its items; tasks linked to the items lose `roadmap_item_id` (tasks area).

    No task is left naming a deleted item (session 22), and no deadlock with a task write: the roadmap's row is
    locked first (FOR UPDATE, as every item write locks it: no item is added or removed meanwhile, and a second
    delete finds it gone, 404); the tasks naming its items are cleared next, which locks their rows (a task update
    in progress, holding its row, is waited for: it may be moving the task from one item of this roadmap to
    another, share-locking that item, which is not locked yet; the clear then sees where it left the task);
    then the DELETE, whose cascade locks the items and waits for the task writes that share-locked one
    (`visible_item_exists`) after the clear read the tasks; then the tasks those writes linked are cleared (a
    statement of its own, seeing what they committed). A write that comes after finds the item gone (400).
    Locking the items before the first clear would deadlock with that move: the task's row held by its update,
    waiting for the item; the item held here, the clear waiting for the task's row."""
    from chalicelib.areas.tasks import service as tasks_service

    roadmap = lock_row(ctx.db, Roadmap, roadmap_id, where=visible(ctx.principal), missing="Roadmap")
    item_ids = list(ctx.db.scalars(select(RoadmapItem.id).where(RoadmapItem.roadmap_id == roadmap.id)))
    tasks_service.clear_roadmap_items(ctx.db, item_ids)
    ctx.db.delete(roadmap)
    ctx.db.flush()
    tasks_service.clear_roadmap_items(ctx.db, item_ids)  # the tasks linked while the cascade waited for them


def project_deleted(db, project_id: str) -> None:
    """The project is being deleted: its roadmaps and their items go with it, and the tasks linked to those items
    lose `roadmap_item_id` (tasks area), as a roadmap delete does, in its order (`delete_roadmap`): the items' ids
    read, the tasks naming them cleared, then the items and roadmaps deleted, then the tasks linked meanwhile cleared.
    Deleting the items first locked them before the clear waited for a task's row: a task update moving that task
    between two of the project's items, holding its row and share-locking the new item, deadlocked with it (a 409;
    session 22's review). Four statements here at most, two in the tasks area when there were items, whatever their
    number."""
    from sqlalchemy import delete

    from chalicelib.areas.tasks import service as tasks_service

    of_project = select(Roadmap.id).where(Roadmap.project_id == project_id)
    item_ids = list(db.scalars(select(RoadmapItem.id).where(RoadmapItem.roadmap_id.in_(of_project))))
    tasks_service.clear_roadmap_items(db, item_ids)
    if item_ids:
        db.execute(delete(RoadmapItem).where(RoadmapItem.roadmap_id.in_(of_project))
                   .execution_options(synchronize_session=False))
    db.execute(delete(Roadmap).where(Roadmap.project_id == project_id).execution_options(synchronize_session=False))
    tasks_service.clear_roadmap_items(db, item_ids)  # the tasks linked while the DELETE waited for them


# ---------------------------------------------------------------- items

def _check_goal(ctx, roadmap: Roadmap, goal_id: str | None) -> None:
    from chalicelib.areas.projects import service as projects_service

    if not goal_id:
        return
    goal = projects_service.goal_briefs(ctx.db, [goal_id]).get(goal_id) if _sees_goals(ctx) else None
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
    return item_records(ctx.db, [item], titles=_sees_goals(ctx))[0]


def update_item(ctx, *, roadmap_id: str, item_id: str, data) -> dict:
    """The dates and the goal are checked on the current rows: the roadmap's row is locked (a project move waits,
    or is waited for) and then the item's, both re-read, so an update that waited for another write checks the
    other date and the project that write left."""
    roadmap = load_roadmap(ctx, roadmap_id)
    lock_row(ctx.db, Roadmap, roadmap.id, missing="Roadmap")
    item = lock_row(ctx.db, RoadmapItem, item_id, where=RoadmapItem.roadmap_id == roadmap.id, missing="Roadmap item")
    changes = data.changes()
    _check_dates(changes.get("start_date", item.start_date), changes.get("end_date", item.end_date), changes)
    if "goal_id" in changes and changes["goal_id"] != item.goal_id:
        _check_goal(ctx, roadmap, changes["goal_id"])
    for key, value in changes.items():
        setattr(item, key, value)
    ctx.db.flush()
    return item_records(ctx.db, [item], titles=_sees_goals(ctx))[0]


def delete_item(ctx, *, roadmap_id: str, item_id: str) -> None:
    """Tasks linked to the item lose `roadmap_item_id` (tasks area). The roadmap's row is locked first (as every item
    write and the roadmap's delete lock it), then the item's (FOR UPDATE), and only then are the tasks cleared: a
    task write naming the item share-locks it (`visible_item_exists`), so one in progress is waited for and then
    cleared, and one that comes after waits for this delete and finds the item gone (400); a second delete finds
    it gone (404). No deadlock with a task update, which holds its task's row and then waits for the item: the
    clear waits only for tasks naming the item already, and a task being linked to it does not name it yet (a
    task that names it already and keeps it does not check it again; one moved to another item takes that one)."""
    from chalicelib.areas.tasks import service as tasks_service

    roadmap = lock_row(ctx.db, Roadmap, roadmap_id, where=visible(ctx.principal), missing="Roadmap")
    item = lock_row(ctx.db, RoadmapItem, item_id, where=RoadmapItem.roadmap_id == roadmap.id, missing="Roadmap item")
    tasks_service.clear_roadmap_items(ctx.db, [item.id])
    ctx.db.delete(item)
    ctx.db.flush()


# ---- for other areas (tasks) ----------------------------------------------------------------------

def visible_item_exists(ctx, item_id: str) -> bool:
    """Whether the roadmap item exists in a roadmap the caller can see (one query): a task may name only such
    an item. The item's row is share-locked (FOR KEY SHARE, not the roadmap's), as projects' `link_project` locks a
    project: a delete of the item or its roadmap in progress (`delete_item`, `delete_roadmap`) is waited for and
    then answers False, and one that comes after waits for the task's write and then unlinks the task. Called by
    tasks' `check_references` only for an item the task names anew: a task update holds the task's row, then
    waits here; the deletes wait only for tasks naming the item already (see their docstrings). A roadmap is seen
    with `roadmaps:view` as well as the scope (session 29: a caller whose roadmaps permission is none planned tasks
    into any item of their scope): False, and no statement, without it."""
    if not ctx.reads("roadmaps"):
        return False
    stmt = select(RoadmapItem.id).join(Roadmap, Roadmap.id == RoadmapItem.roadmap_id).where(RoadmapItem.id == item_id)
    stmt = in_scope(stmt, visible(ctx.principal)).with_for_update(read=True, key_share=True, of=RoadmapItem)
    return ctx.db.scalar(stmt) is not None


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
