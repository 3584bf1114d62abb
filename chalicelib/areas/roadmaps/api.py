"""Roadmaps (tool `roadmaps`: view reads, update creates and edits, manage deletes a roadmap)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint

from . import service
from .schemas import ItemCreate, ItemUpdate, RoadmapCreate, RoadmapQuery, RoadmapUpdate

bp = Blueprint(__name__)


@bp.route("/api/roadmaps", methods=["GET"])
@endpoint(tool="roadmaps", level="view", query=RoadmapQuery)
def list_roadmaps(ctx, query: RoadmapQuery):
    """List roadmaps (filter: project_id)"""
    return service.list_roadmaps(ctx, query=query)


@bp.route("/api/roadmaps", methods=["POST"])
@endpoint(tool="roadmaps", level="update", body=RoadmapCreate, status=201)
def create_roadmap(ctx, body: RoadmapCreate):
    """Create a roadmap"""
    return service.create_roadmap(ctx, data=body)


@bp.route("/api/roadmaps/{roadmap_id}", methods=["GET"])
@endpoint(tool="roadmaps", level="view")
def get_roadmap(ctx, roadmap_id: str):
    """A roadmap with its items and the tasks linked to them"""
    return service.get_roadmap(ctx, roadmap_id=roadmap_id)


@bp.route("/api/roadmaps/{roadmap_id}", methods=["PUT"])
@endpoint(tool="roadmaps", level="update", body=RoadmapUpdate)
def update_roadmap(ctx, roadmap_id: str, body: RoadmapUpdate):
    """Update a roadmap"""
    return service.update_roadmap(ctx, roadmap_id=roadmap_id, data=body)


@bp.route("/api/roadmaps/{roadmap_id}", methods=["DELETE"])
@endpoint(tool="roadmaps", level="manage")
def delete_roadmap(ctx, roadmap_id: str):
    """Delete a roadmap"""
    return service.delete_roadmap(ctx, roadmap_id=roadmap_id)


@bp.route("/api/roadmaps/{roadmap_id}/items", methods=["POST"])
@endpoint(tool="roadmaps", level="update", body=ItemCreate, status=201)
def create_item(ctx, roadmap_id: str, body: ItemCreate):
    """Add an item to a roadmap"""
    return service.create_item(ctx, roadmap_id=roadmap_id, data=body)


@bp.route("/api/roadmaps/{roadmap_id}/items/{roadmap_item_id}", methods=["PUT"])
@endpoint(tool="roadmaps", level="update", body=ItemUpdate)
def update_item(ctx, roadmap_id: str, roadmap_item_id: str, body: ItemUpdate):
    """Update a roadmap item"""
    return service.update_item(ctx, roadmap_id=roadmap_id, item_id=roadmap_item_id, data=body)


@bp.route("/api/roadmaps/{roadmap_id}/items/{roadmap_item_id}", methods=["DELETE"])
@endpoint(tool="roadmaps", level="update")
def delete_item(ctx, roadmap_id: str, roadmap_item_id: str):
    """Delete a roadmap item"""
    return service.delete_item(ctx, roadmap_id=roadmap_id, item_id=roadmap_item_id)
