"""Sprints (tool `projects`: view reads, update creates and edits, manage deletes)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, one, paged

from . import queries, service
from .schemas import SprintCreate, SprintListQuery, SprintRead, SprintUpdate

bp = Blueprint(__name__)


@bp.route("/api/sprints", methods=["GET"])
@endpoint(tool="projects", level="view", query=SprintListQuery, response=paged("sprints", SprintRead))
def list_sprints(ctx, query: SprintListQuery):
    """List sprints (filters: project_id, status; `limit` at most 500 and `offset`, with `total`)"""
    return queries.list_sprints(ctx, query).body("sprints")


@bp.route("/api/sprints", methods=["POST"])
@endpoint(tool="projects", level="update", body=SprintCreate, status=201, response=one("sprint", SprintRead))
def create_sprint(ctx, body: SprintCreate):
    """Create a sprint"""
    return {"sprint": service.create_sprint(ctx, data=body)}


@bp.route("/api/sprints/{sprint_id}", methods=["GET"])
@endpoint(tool="projects", level="view", response=one("sprint", SprintRead))
def get_sprint(ctx, sprint_id: str):
    """A sprint"""
    return {"sprint": queries.sprint_record(ctx, queries.load_sprint(ctx, sprint_id))}


@bp.route("/api/sprints/{sprint_id}", methods=["PUT"])
@endpoint(tool="projects", level="update", body=SprintUpdate, response=one("sprint", SprintRead))
def update_sprint(ctx, sprint_id: str, body: SprintUpdate):
    """Update a sprint"""
    return {"sprint": service.update_sprint(ctx, sprint_id=sprint_id, data=body)}


@bp.route("/api/sprints/{sprint_id}", methods=["DELETE"])
@endpoint(tool="projects", level="manage", response=OkResponse)
def delete_sprint(ctx, sprint_id: str):
    """Delete a sprint"""
    service.delete_sprint(ctx, sprint_id=sprint_id)
    return {"ok": True}
