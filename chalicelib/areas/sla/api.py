"""Service levels (tool `sla`: view reads, update creates and edits, manage deletes a policy)."""
from chalice import Blueprint, Rate

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, one, paged

from . import jobs, service, service_tasks
from .schemas import (ComplianceQuery, ComplianceReport, SlaMarkResponse, SlaPolicyCreate, SlaPolicyListQuery,
                      SlaPolicyRead, SlaPolicyUpdate, TaskSlaAssign, TaskSlaResponse)

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


@bp.route("/api/sla/tasks/{task_id}", methods=["GET"])
@endpoint(tool="sla", level="view", response=TaskSlaResponse)
def get_task_sla(ctx, task_id: str):
    """A task's SLA assignment (null when none)"""
    return {"sla": service_tasks.get_task_sla(ctx, task_id=task_id)}


@bp.route("/api/sla/tasks/{task_id}", methods=["PUT"])
@endpoint(tool="sla", level="update", body=TaskSlaAssign, response=TaskSlaResponse)
def assign_task_sla(ctx, task_id: str, body: TaskSlaAssign):
    """Assign (or reassign) a task's SLA; deadlines from the policy's rule for the task's priority"""
    return {"sla": service_tasks.assign_task_sla(ctx, task_id=task_id, data=body)}


@bp.route("/api/sla/tasks/{task_id}/respond", methods=["POST"])
@endpoint(tool="sla", level="update", errors=(409,), response=SlaMarkResponse)
def respond(ctx, task_id: str):
    """Mark the task's response met; breached when after the response deadline"""
    return {"ok": True, "breached": service_tasks.mark(ctx, task_id=task_id, what="response")}


@bp.route("/api/sla/tasks/{task_id}/resolve", methods=["POST"])
@endpoint(tool="sla", level="update", errors=(409,), response=SlaMarkResponse)
def resolve(ctx, task_id: str):
    """Mark the task's resolution met; breached when after the resolution deadline"""
    return {"ok": True, "breached": service_tasks.mark(ctx, task_id=task_id, what="resolution")}


@bp.route("/api/sla/compliance", methods=["GET"])
@endpoint(tool="sla", level="view", query=ComplianceQuery, response=ComplianceReport)
def compliance(ctx, query: ComplianceQuery):
    """Compliance per policy and the tasks with a deadline in the next 4 hours (at most 20)"""
    report, at_risk = service_tasks.compliance(ctx, policy_id=query.policy_id)
    return {"compliance": report, "at_risk": at_risk}


@bp.schedule(Rate(15, unit=Rate.MINUTES))
def sla_breach_scan(event):
    """Notify assignees of SLA deadlines passed while open (once per assignment)."""
    return jobs.breach_scan()
