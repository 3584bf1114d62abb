"""Projects routes (tool `projects`): thin wrappers over the area's services."""
from chalice import Blueprint

from chalicelib.core.http import endpoint

from . import service, service_decisions, service_goals, service_insights, service_members
from .schemas import (DealLinkPut, DecisionCreate, DecisionUpdate, GoalCreate, GoalUpdate, MemberAdd, ProjectCreate,
                      ProjectListQuery, ProjectUpdate)

bp = Blueprint(__name__)
OK = {"ok": True}


@bp.route("/api/projects", methods=["GET"])
@endpoint(tool="projects", level="view", query=ProjectListQuery)
def list_projects(ctx, query: ProjectListQuery):
    """List the projects the caller may see"""
    return {"projects": service.list_projects(ctx, query=query)}


@bp.route("/api/projects", methods=["POST"])
@endpoint(tool="projects", level="update", body=ProjectCreate, status=201)
def create_project(ctx, body: ProjectCreate):
    """Create a project (the creator becomes its owner member)"""
    return {"project": service.create(ctx, data=body)}


@bp.route("/api/projects/{project_id}", methods=["GET"])
@endpoint(tool="projects", level="view")
def get_project(ctx, project_id: str):
    """A project with its members and goals"""
    return service.get_detail(ctx, project_id=project_id)


@bp.route("/api/projects/{project_id}", methods=["PUT"])
@endpoint(tool="projects", level="update", body=ProjectUpdate)
def update_project(ctx, project_id: str, body: ProjectUpdate):
    """Update any subset of a project's writable fields"""
    return {"project": service.update(ctx, project_id=project_id, data=body)}


@bp.route("/api/projects/{project_id}", methods=["DELETE"])
@endpoint(tool="projects", level="manage")
def delete_project(ctx, project_id: str):
    """Delete a project"""
    service.delete(ctx, project_id=project_id)
    return OK


@bp.route("/api/projects/{project_id}/history", methods=["GET"])
@endpoint(tool="projects", level="view")
def project_history(ctx, project_id: str):
    """A project's history entries, newest first"""
    return {"history": service.project_history(ctx, project_id=project_id)}


# ---------------------------------------------------------------- members

@bp.route("/api/projects/{project_id}/members", methods=["GET"])
@endpoint(tool="projects", level="view")
def list_members(ctx, project_id: str):
    """A project's members"""
    return {"members": service_members.list_members(ctx, project_id=project_id)}


@bp.route("/api/projects/{project_id}/members", methods=["POST"])
@endpoint(tool="projects", level="update", body=MemberAdd, status=201)
def add_member(ctx, project_id: str, body: MemberAdd):
    """Add a member (an existing member is left unchanged)"""
    service_members.add_member(ctx, project_id=project_id, data=body)
    return OK


@bp.route("/api/projects/{project_id}/members/{user_id}", methods=["DELETE"])
@endpoint(tool="projects", level="update")
def remove_member(ctx, project_id: str, user_id: str):
    """Remove a member"""
    service_members.remove_member(ctx, project_id=project_id, user_id=user_id)
    return OK


# ---------------------------------------------------------------- goals

@bp.route("/api/projects/{project_id}/goals", methods=["GET"])
@endpoint(tool="projects", level="view")
def list_goals(ctx, project_id: str):
    """A project's goals, by position then creation"""
    return {"goals": service_goals.list_goals(ctx, project_id=project_id)}


@bp.route("/api/projects/{project_id}/goals", methods=["POST"])
@endpoint(tool="projects", level="update", body=GoalCreate, status=201)
def create_goal(ctx, project_id: str, body: GoalCreate):
    """Add a goal"""
    return {"goal": service_goals.create_goal(ctx, project_id=project_id, data=body)}


@bp.route("/api/projects/{project_id}/goals/{goal_id}", methods=["PUT"])
@endpoint(tool="projects", level="update", body=GoalUpdate)
def update_goal(ctx, project_id: str, goal_id: str, body: GoalUpdate):
    """Update a goal"""
    return {"goal": service_goals.update_goal(ctx, project_id=project_id, goal_id=goal_id, data=body)}


@bp.route("/api/projects/{project_id}/goals/{goal_id}", methods=["DELETE"])
@endpoint(tool="projects", level="update")
def delete_goal(ctx, project_id: str, goal_id: str):
    """Delete a goal"""
    service_goals.delete_goal(ctx, project_id=project_id, goal_id=goal_id)
    return OK


# ---------------------------------------------------------------- decisions

@bp.route("/api/projects/{project_id}/decisions", methods=["GET"])
@endpoint(tool="projects", level="view")
def list_decisions(ctx, project_id: str):
    """A project's decision log, newest first"""
    return {"decisions": service_decisions.list_decisions(ctx, project_id=project_id)}


@bp.route("/api/projects/{project_id}/decisions", methods=["POST"])
@endpoint(tool="projects", level="update", body=DecisionCreate, status=201)
def create_decision(ctx, project_id: str, body: DecisionCreate):
    """Log a decision"""
    return {"decision": service_decisions.create_decision(ctx, project_id=project_id, data=body)}


@bp.route("/api/projects/{project_id}/decisions/{decision_id}", methods=["PUT"])
@endpoint(tool="projects", level="update", body=DecisionUpdate)
def update_decision(ctx, project_id: str, decision_id: str, body: DecisionUpdate):
    """Update a decision"""
    return {"decision": service_decisions.update_decision(ctx, project_id=project_id, decision_id=decision_id,
                                                          data=body)}


@bp.route("/api/projects/{project_id}/decisions/{decision_id}", methods=["DELETE"])
@endpoint(tool="projects", level="update")
def delete_decision(ctx, project_id: str, decision_id: str):
    """Delete a decision"""
    service_decisions.delete_decision(ctx, project_id=project_id, decision_id=decision_id)
    return OK


# ---------------------------------------------------------------- tasks, AI summary, deal (profitability: budgets area)

@bp.route("/api/projects/{project_id}/tasks", methods=["GET"])
@endpoint(tool="projects", level="view")
def project_tasks(ctx, project_id: str):
    """A project's top-level tasks"""
    return {"tasks": service_insights.project_tasks(ctx, project_id=project_id)}


@bp.route("/api/projects/{project_id}/ai-summary", methods=["GET"])
@endpoint(tool="projects", level="view")
def get_ai_summary(ctx, project_id: str):
    """The stored AI summary (null when none was generated)"""
    return {"summary": service_insights.get_summary(ctx, project_id=project_id)}


@bp.route("/api/projects/{project_id}/ai-summary", methods=["POST"])
@endpoint(tool="projects", level="view", errors=(502, 503))
def generate_ai_summary(ctx, project_id: str):
    """Generate the AI summary, replacing the stored one"""
    return {"summary": service_insights.generate_summary(ctx, project_id=project_id)}


@bp.route("/api/projects/{project_id}/deal", methods=["GET"])
@endpoint(tool="projects", level="view")
def get_deal_link(ctx, project_id: str):
    """The deal linked to the project (null when none)"""
    return {"deal_link": service_insights.get_deal_link(ctx, project_id=project_id)}


@bp.route("/api/projects/{project_id}/deal", methods=["PUT"])
@endpoint(tool="projects", level="update", body=DealLinkPut)
def set_deal_link(ctx, project_id: str, body: DealLinkPut):
    """Link a deal to the project, or unlink it with deal_id null"""
    return {"deal_link": service_insights.set_deal_link(ctx, project_id=project_id, data=body)}
