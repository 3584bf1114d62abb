"""The roadmaps area's leaf module: the scope clause `visible`, the load-or-404 helpers `load_roadmap` and
`load_roadmap_item`, the record builders and the read queries. service.py imports it, never the reverse."""
from __future__ import annotations

from sqlalchemy import func, or_, select

from chalicelib.core.query import LIST_LIMIT, visible_row
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


def load_roadmap_item(ctx, roadmap_id: str, item_id: str) -> RoadmapItem:
    """The item of this roadmap (already loaded through `load_roadmap`); 404 otherwise."""
    return visible_row(ctx.db, RoadmapItem, item_id, RoadmapItem.roadmap_id == roadmap_id, "Roadmap item")


def item_count(db, roadmap_id: str) -> int:
    return db.scalar(select(func.count(RoadmapItem.id)).where(RoadmapItem.roadmap_id == roadmap_id)) or 0


def item_count_column():
    return (select(func.count(RoadmapItem.id)).where(RoadmapItem.roadmap_id == Roadmap.id)
            .correlate(Roadmap).scalar_subquery().label("item_count"))


def roadmap_out(row) -> dict:
    roadmap, count = row
    return {**row_dict(roadmap, ROADMAP_FIELDS), "item_count": int(count or 0)}


def roadmap_record(ctx, roadmap_id: str) -> dict:
    return roadmap_out(ctx.db.execute(select(Roadmap, item_count_column()).where(Roadmap.id == roadmap_id)).one())


def item_records(db, items: list[RoadmapItem]) -> list[dict]:
    """Item records with their goal's title (one query for the whole list)."""
    from chalicelib.areas.projects import service as projects_service

    goals = projects_service.goal_briefs(db, [item.goal_id for item in items if item.goal_id])
    return [{**row_dict(item, ITEM_FIELDS), "goal_title": goals.get(item.goal_id, {}).get("title")}
            for item in items]


def roadmap_items(db, roadmap_id: str) -> list[RoadmapItem]:
    """The roadmap's items by position (at most ITEM_LIMIT, the cap enforced on write)."""
    return list(db.scalars(select(RoadmapItem).where(RoadmapItem.roadmap_id == roadmap_id)
                           .order_by(RoadmapItem.position, RoadmapItem.created_at, RoadmapItem.id)
                           .limit(ITEM_LIMIT)))
