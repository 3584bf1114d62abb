"""Service levels (tool `sla`: view reads, update creates and edits, manage deletes a policy)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, one, paged

from . import service
from .schemas import SlaPolicyCreate, SlaPolicyListQuery, SlaPolicyRead, SlaPolicyUpdate

bp = Blueprint(__name__)


@bp.route("/api/sla/policies", methods=["GET"])
@endpoint(tool="sla", level="view", query=SlaPolicyListQuery, response=paged("policies", SlaPolicyRead))
def list_policies(ctx, query: SlaPolicyListQuery):
    """List SLA policies with company_name and nested rules (filter: company_id; `limit` at most 500 and
    `offset`, with `total`)"""
    return service.list_policies(ctx, query).body("policies")


@bp.route("/api/sla/policies", methods=["POST"])
@endpoint(tool="sla", level="update", body=SlaPolicyCreate, status=201, response=one("policy", SlaPolicyRead))
def create_policy(ctx, body: SlaPolicyCreate):
    """Create an SLA policy with its per-priority rules"""
    return {"policy": service.create_policy(ctx, data=body)}


@bp.route("/api/sla/policies/{policy_id}", methods=["PUT"])
@endpoint(tool="sla", level="update", body=SlaPolicyUpdate, response=one("policy", SlaPolicyRead))
def update_policy(ctx, policy_id: str, body: SlaPolicyUpdate):
    """Update an SLA policy; `rules`, when given, replaces every existing rule"""
    return {"policy": service.update_policy(ctx, policy_id=policy_id, data=body)}


@bp.route("/api/sla/policies/{policy_id}", methods=["DELETE"])
@endpoint(tool="sla", level="manage", response=OkResponse)
def delete_policy(ctx, policy_id: str):
    """Delete an SLA policy"""
    service.delete_policy(ctx, policy_id=policy_id)
    return {"ok": True}
