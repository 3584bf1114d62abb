"""The roadmaps area's leaf module: the scope clause `visible`, the load-or-404 helper `load_roadmap` (an item is
read in its roadmap by service.py), the record builders and the read queries. service.py imports it, never the
reverse."""
from __future__ import annotations

from sqlalchemy import func, or_, select

from chalicelib.core.lookup import ids_read
from chalicelib.core.query import LIST_LIMIT, Read, record_sets, visible_row
from chalicelib.core.serialize import row_dict

from .models import Roadmap, RoadmapItem

ROADMAP_FIELDS = ("id", "name", "description", "project_id", "start_date", "end_date", "created_by", "created_at",
                  "updated_at")
ITEM_FIELDS = ("id", "roadmap_id", "title", "description", "goal_id", "area", "start_date", "end_date", "color",
               "position", "created_at", "updated_at")
# A roadmap holds at most this many items (enforced on write), so its detail answers them all.
ITEM_LIMIT = LIST_LIMIT


def visible(principal):
    """WHERE clause of the roadmaps the principal may see (None: all): a roadmap of a project is seen by
    whoever sees the project; one without a project by every holder of roadmaps:view."""
    from chalicelib.areas.projects import service as projects_service

    projects = projects_service.visible_project_ids(principal)
    if projects is None:
        return None
    return or_(Roadmap.project_id.is_(None), Roadmap.project_id.in_(projects))


def load_roadmap(ctx, roadmap_id: str) -> Roadmap:
    """The roadmap if it exists and the caller may see it; 404 otherwise (one query)."""
    return visible_row(ctx.db, Roadmap, roadmap_id, visible(ctx.principal), "Roadmap")


def item_count(db, roadmap_id: str) -> int:
    return db.scalar(select(func.count(RoadmapItem.id)).where(RoadmapItem.roadmap_id == roadmap_id)) or 0


def roadmap_select():
    """The roadmaps' columns (records: core.query.record_rows / record_page); their item counts come from
    `item_counts_select`, one grouped read for a whole page."""
    return select(*(getattr(Roadmap, name) for name in ROADMAP_FIELDS))


def _item_counts_statement(roadmap_in):
    return (select(RoadmapItem.roadmap_id, func.count().label("n")).where(roadmap_in(RoadmapItem.roadmap_id))
            .group_by(RoadmapItem.roadmap_id))


def item_counts_select(db, roadmap_ids) -> Read | None:
    """The item counts of these roadmaps (rows roadmap_id, n; built once per process), None without ids."""
    return ids_read(db, _item_counts_statement, "roadmap_count_ids", roadmap_ids)


def with_item_counts(records: list[dict], counts: list[dict]) -> list[dict]:
    """The records with their `item_count` (0 for a roadmap without items)."""
    by_roadmap = {row["roadmap_id"]: int(row["n"]) for row in counts}
    for record in records:
        record["item_count"] = by_roadmap.get(record["id"], 0)
    return records


def roadmap_record(ctx, roadmap_id: str) -> dict:
    """The record of a roadmap the caller has loaded, with its item count: one statement (core.query.record_sets)."""
    sets = record_sets(ctx.db, roadmap=roadmap_select().where(Roadmap.id == roadmap_id),
                       counts=item_counts_select(ctx.db, [roadmap_id]))
    return with_item_counts(sets["roadmap"], sets["counts"])[0]


def item_records(db, items: list[RoadmapItem], *, titles: bool = True) -> list[dict]:
    """Item records with their goal's title (one query for the whole list; `titles`: see `with_goal_titles`)."""
    return with_goal_titles(db, [row_dict(item, ITEM_FIELDS) for item in items], titles=titles)


def with_goal_titles(db, records: list[dict], *, titles: bool = True) -> list[dict]:
    """Item records (ITEM_FIELDS) with their goal's `goal_title` (one query for the whole list). A goal is a project's
    record: without `titles` (a caller who may not view projects, session 29) every `goal_title` is null, nothing read."""
    from chalicelib.areas.projects import service as projects_service

    goals = projects_service.goal_briefs(db, [record["goal_id"] for record in records if record["goal_id"]]) \
        if titles else {}
    return [{**record, "goal_title": goals.get(record["goal_id"], {}).get("title")} for record in records]


def item_select(roadmap_id: str):
    """The roadmap's items' columns (ITEM_FIELDS) by position, then creation (and id), unbounded: the caller pages
    it (`record_page`)."""
    return (select(*(getattr(RoadmapItem, name) for name in ITEM_FIELDS)).where(RoadmapItem.roadmap_id == roadmap_id)
            .order_by(RoadmapItem.position, RoadmapItem.created_at, RoadmapItem.id))


def roadmap_items(db, roadmap_id: str) -> list[RoadmapItem]:
    """The roadmap's items by position (at most ITEM_LIMIT, the cap enforced on write)."""
    return list(db.scalars(select(RoadmapItem).where(RoadmapItem.roadmap_id == roadmap_id)
                           .order_by(RoadmapItem.position, RoadmapItem.created_at, RoadmapItem.id)
                           .limit(ITEM_LIMIT)))
