"""Roadmaps (tool `roadmaps`: view reads, update creates and edits, manage deletes a roadmap)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.query import FitBody
from chalicelib.core.schemas import OkResponse, PageQuery, one, paged

from . import service
from .schemas import (RoadmapItemCreate, RoadmapItemUpdate, RoadmapCreate, RoadmapDetail, RoadmapItemRead, RoadmapListQuery,
                      RoadmapRead, RoadmapUpdate)

bp = Blueprint(__name__)


@bp.route("/api/roadmaps", methods=["GET"])
@endpoint(tool="roadmaps", level="view", query=RoadmapListQuery, response=paged("roadmaps", RoadmapRead))
def list_roadmaps(ctx, query: RoadmapListQuery):
    """List roadmaps (filter: project_id; `limit` at most 500 and `offset`, with `total`)"""
    return service.list_roadmaps(ctx, query).body("roadmaps")


@bp.route("/api/roadmaps", methods=["POST"])
@endpoint(tool="roadmaps", level="update", body=RoadmapCreate, status=201, response=one("roadmap", RoadmapRead))
def create_roadmap(ctx, body: RoadmapCreate):
    """Create a roadmap"""
    return {"roadmap": service.create_roadmap(ctx, data=body)}


@bp.route("/api/roadmaps/{roadmap_id}", methods=["GET"])
@endpoint(tool="roadmaps", level="view", response=RoadmapDetail)
def get_roadmap(ctx, roadmap_id: str):
    """A roadmap with its items and the tasks linked to them"""
    roadmap, items, tasks = service.get_roadmap(ctx, roadmap_id=roadmap_id)
    # items too long to answer together are cut to those that fit (core.http.fit_page): fewer than the roadmap's
    # `item_count` then, the rest read from GET /items (paged)
    return FitBody("items", {"roadmap": roadmap, "items": items, "tasks": tasks.items, "tasks_total": tasks.total})


@bp.route("/api/roadmaps/{roadmap_id}", methods=["PUT"])
@endpoint(tool="roadmaps", level="update", body=RoadmapUpdate, response=one("roadmap", RoadmapRead))
def update_roadmap(ctx, roadmap_id: str, body: RoadmapUpdate):
    """Update a roadmap"""
    return {"roadmap": service.update_roadmap(ctx, roadmap_id=roadmap_id, data=body)}


@bp.route("/api/roadmaps/{roadmap_id}", methods=["DELETE"])
@endpoint(tool="roadmaps", level="manage", response=OkResponse)
def delete_roadmap(ctx, roadmap_id: str):
    """Delete a roadmap"""
    service.delete_roadmap(ctx, roadmap_id=roadmap_id)
    return {"ok": True}


@bp.route("/api/roadmaps/{roadmap_id}/items", methods=["GET"])
@endpoint(tool="roadmaps", level="view", query=PageQuery, response=paged("items", RoadmapItemRead))
def list_items(ctx, roadmap_id: str, query: PageQuery):
    """A roadmap's items, by position then creation (`limit` at most 500 and `offset`, with `total`)"""
    return service.list_items(ctx, roadmap_id=roadmap_id, query=query).body("items")


@bp.route("/api/roadmaps/{roadmap_id}/items", methods=["POST"])
@endpoint(tool="roadmaps", level="update", body=RoadmapItemCreate, status=201, response=one("item", RoadmapItemRead))
def create_item(ctx, roadmap_id: str, body: RoadmapItemCreate):
    """Add an item to a roadmap (at most 500 per roadmap)"""
    return {"item": service.create_item(ctx, roadmap_id=roadmap_id, data=body)}


@bp.route("/api/roadmaps/{roadmap_id}/items/{roadmap_item_id}", methods=["PUT"])
@endpoint(tool="roadmaps", level="update", body=RoadmapItemUpdate, response=one("item", RoadmapItemRead))
def update_item(ctx, roadmap_id: str, roadmap_item_id: str, body: RoadmapItemUpdate):
    """Update a roadmap item"""
    return {"item": service.update_item(ctx, roadmap_id=roadmap_id, item_id=roadmap_item_id, data=body)}


@bp.route("/api/roadmaps/{roadmap_id}/items/{roadmap_item_id}", methods=["DELETE"])
@endpoint(tool="roadmaps", level="update", response=OkResponse)
def delete_item(ctx, roadmap_id: str, roadmap_item_id: str):
    """Delete a roadmap item"""
    service.delete_item(ctx, roadmap_id=roadmap_id, item_id=roadmap_item_id)
    return {"ok": True}
