"""Sprints (tool `projects`: view reads, update creates and edits, manage deletes)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint

from . import service
from .schemas import SprintCreate, SprintQuery, SprintUpdate

bp = Blueprint(__name__)


@bp.route("/api/sprints", methods=["GET"])
@endpoint(tool="projects", level="view", query=SprintQuery)
def list_sprints(ctx, query: SprintQuery):
    """List sprints (filters: project_id, status)"""
    return service.list_sprints(ctx, project_id=query.project_id, status=query.status)


@bp.route("/api/sprints", methods=["POST"])
@endpoint(tool="projects", level="update", body=SprintCreate, status=201)
def create_sprint(ctx, body: SprintCreate):
    """Create a sprint"""
    return service.create_sprint(ctx, data=body)


@bp.route("/api/sprints/{sprint_id}", methods=["GET"])
@endpoint(tool="projects", level="view")
def get_sprint(ctx, sprint_id: str):
    """A sprint"""
    return service.get_sprint(ctx, sprint_id=sprint_id)


@bp.route("/api/sprints/{sprint_id}", methods=["PUT"])
@endpoint(tool="projects", level="update", body=SprintUpdate)
def update_sprint(ctx, sprint_id: str, body: SprintUpdate):
    """Update a sprint"""
    return service.update_sprint(ctx, sprint_id=sprint_id, data=body)


@bp.route("/api/sprints/{sprint_id}", methods=["DELETE"])
@endpoint(tool="projects", level="manage")
def delete_sprint(ctx, sprint_id: str):
    """Delete a sprint"""
    return service.delete_sprint(ctx, sprint_id=sprint_id)
