"""Projects routes (tool `projects`): thin wrappers over the area's services."""
from chalice import Blueprint

from chalicelib.core.history import HistoryEntryRead
from chalicelib.core.http import endpoint
from chalicelib.core.query import FitBody
from chalicelib.core.schemas import OkResponse, PageQuery, many, one, paged

from . import service, service_decisions, service_goals, service_insights, service_members
from .schemas import (AiSummaryResponse, DealLinkPut, DealLinkResponse, DecisionCreate, DecisionRead, DecisionUpdate,
                      GoalCreate, GoalRead, GoalUpdate, MemberAdd, MemberRead, ProjectCreate, ProjectDetail,
                      ProjectFullRead, ProjectListQuery, ProjectRead, ProjectTaskRead, ProjectUpdate)

bp = Blueprint(__name__)
OK = {"ok": True}


@bp.route("/api/projects", methods=["GET"])
@endpoint(tool="projects", level="view", query=ProjectListQuery, response=paged("projects", ProjectRead))
def list_projects(ctx, query: ProjectListQuery):
    """List the projects the caller may see (`limit` at most 500 and `offset`, with `total`)"""
    return service.list_projects(ctx, query=query).body("projects")


@bp.route("/api/projects", methods=["POST"])
@endpoint(tool="projects", level="update", body=ProjectCreate, status=201, response=one("project", ProjectFullRead))
def create_project(ctx, body: ProjectCreate):
    """Create a project (the creator becomes its owner member)"""
    return {"project": service.create_project(ctx, data=body)}


@bp.route("/api/projects/{project_id}", methods=["GET"])
@endpoint(tool="projects", level="view", response=ProjectDetail)
def get_project(ctx, project_id: str):
    """A project with its members and goals"""
    project, members, goals = service.get_detail(ctx, project_id=project_id)
    # goals too long to answer together (6 MB) are cut to those that fit: `goals_limit` then says how many it
    # carries (the rest: GET /goals?offset=goals_limit)
    return FitBody("goals", {"project": project, "members": members, "goals": goals}, limit_key="goals_limit")


@bp.route("/api/projects/{project_id}", methods=["PUT"])
@endpoint(tool="projects", level="update", body=ProjectUpdate, errors=(409,), response=one("project", ProjectFullRead))
def update_project(ctx, project_id: str, body: ProjectUpdate):
    """Update any subset of a project's writable fields"""
    return {"project": service.update_project(ctx, project_id=project_id, data=body)}


@bp.route("/api/projects/{project_id}", methods=["DELETE"])
@endpoint(tool="projects", level="manage", errors=(404, 409), response=OkResponse)
def delete_project(ctx, project_id: str):
    """Delete a project with its sprints and roadmaps (its tasks are kept, standalone); 409 while time entries or
    budgets name it"""
    service.delete_project(ctx, project_id=project_id)
    return OK


@bp.route("/api/projects/{project_id}/history", methods=["GET"])
@endpoint(tool="projects", level="view", query=PageQuery, response=paged("history", HistoryEntryRead))
def project_history(ctx, project_id: str, query: PageQuery):
    """A project's history entries, newest first (paged)"""
    return service.project_history(ctx, project_id=project_id, query=query).body("history")


# ---------------------------------------------------------------- members

@bp.route("/api/projects/{project_id}/members", methods=["GET"])
@endpoint(tool="projects", level="view", response=many("members", MemberRead))
def list_members(ctx, project_id: str):
    """A project's members"""
    return {"members": service_members.list_members(ctx, project_id=project_id)}


@bp.route("/api/projects/{project_id}/members", methods=["POST"])
@endpoint(tool="projects", level="update", body=MemberAdd, status=201, errors=(409,), response=OkResponse)
def add_member(ctx, project_id: str, body: MemberAdd):
    """Add a member (an existing member is left unchanged)"""
    service_members.add_member(ctx, project_id=project_id, data=body)
    return OK


@bp.route("/api/projects/{project_id}/members/{user_id}", methods=["DELETE"])
@endpoint(tool="projects", level="update", response=OkResponse)
def remove_member(ctx, project_id: str, user_id: str):
    """Remove a member"""
    service_members.delete_member(ctx, project_id=project_id, user_id=user_id)
    return OK


# ---------------------------------------------------------------- goals

@bp.route("/api/projects/{project_id}/goals", methods=["GET"])
@endpoint(tool="projects", level="view", query=PageQuery, response=paged("goals", GoalRead))
def list_goals(ctx, project_id: str, query: PageQuery):
    """A project's goals, by position then creation (`limit` at most 500 and `offset`, with `total`)"""
    return service_goals.list_goals(ctx, project_id=project_id, query=query).body("goals")


@bp.route("/api/projects/{project_id}/goals", methods=["POST"])
@endpoint(tool="projects", level="update", body=GoalCreate, status=201, errors=(409,), response=one("goal", GoalRead))
def create_goal(ctx, project_id: str, body: GoalCreate):
    """Add a goal"""
    return {"goal": service_goals.create_goal(ctx, project_id=project_id, data=body)}


@bp.route("/api/projects/{project_id}/goals/{goal_id}", methods=["PUT"])
@endpoint(tool="projects", level="update", body=GoalUpdate, response=one("goal", GoalRead))
def update_goal(ctx, project_id: str, goal_id: str, body: GoalUpdate):
    """Update a goal"""
    return {"goal": service_goals.update_goal(ctx, project_id=project_id, goal_id=goal_id, data=body)}


@bp.route("/api/projects/{project_id}/goals/{goal_id}", methods=["DELETE"])
@endpoint(tool="projects", level="update", response=OkResponse)
def delete_goal(ctx, project_id: str, goal_id: str):
    """Delete a goal"""
    service_goals.delete_goal(ctx, project_id=project_id, goal_id=goal_id)
    return OK


# ---------------------------------------------------------------- decisions

@bp.route("/api/projects/{project_id}/decisions", methods=["GET"])
@endpoint(tool="projects", level="view", query=PageQuery, response=paged("decisions", DecisionRead))
def list_decisions(ctx, project_id: str, query: PageQuery):
    """A project's decision log, newest first (`limit` at most 500 and `offset`, with `total`)"""
    return service_decisions.list_decisions(ctx, project_id=project_id, query=query).body("decisions")


@bp.route("/api/projects/{project_id}/decisions", methods=["POST"])
@endpoint(tool="projects", level="update", body=DecisionCreate, status=201, errors=(409,),
          response=one("decision", DecisionRead))
def create_decision(ctx, project_id: str, body: DecisionCreate):
    """Log a decision"""
    return {"decision": service_decisions.create_decision(ctx, project_id=project_id, data=body)}


@bp.route("/api/projects/{project_id}/decisions/{decision_id}", methods=["PUT"])
@endpoint(tool="projects", level="update", body=DecisionUpdate, response=one("decision", DecisionRead))
def update_decision(ctx, project_id: str, decision_id: str, body: DecisionUpdate):
    """Update a decision"""
    return {"decision": service_decisions.update_decision(ctx, project_id=project_id, decision_id=decision_id,
                                                          data=body)}


@bp.route("/api/projects/{project_id}/decisions/{decision_id}", methods=["DELETE"])
@endpoint(tool="projects", level="update", response=OkResponse)
def delete_decision(ctx, project_id: str, decision_id: str):
    """Delete a decision"""
    service_decisions.delete_decision(ctx, project_id=project_id, decision_id=decision_id)
    return OK


# ---------------------------------------------------------------- tasks, AI summary, deal (profitability: budgets area)

@bp.route("/api/projects/{project_id}/tasks", methods=["GET"])
@endpoint(tool="projects", level="view", query=PageQuery, response=paged("tasks", ProjectTaskRead))
def project_tasks(ctx, project_id: str, query: PageQuery):
    """A project's top-level tasks (paged)"""
    return service_insights.project_tasks(ctx, project_id=project_id, query=query).body("tasks")


@bp.route("/api/projects/{project_id}/ai-summary", methods=["GET"])
@endpoint(tool="projects", level="view", response=AiSummaryResponse)
def get_ai_summary(ctx, project_id: str):
    """The stored AI summary (null when none was generated)"""
    return {"summary": service_insights.get_summary(ctx, project_id=project_id)}


@bp.route("/api/projects/{project_id}/ai-summary", methods=["POST"])
@endpoint(tool="projects", level="view", errors=(429, 502, 503), response=AiSummaryResponse)
def generate_ai_summary(ctx, project_id: str):
    """Generate the AI summary, replacing the stored one"""
    return {"summary": service_insights.generate_summary(ctx, project_id=project_id)}


@bp.route("/api/projects/{project_id}/deal", methods=["GET"])
@endpoint(tool="projects", level="view", response=DealLinkResponse)
def get_deal_link(ctx, project_id: str):
    """The deal linked to the project (null when none)"""
    return {"deal_link": service_insights.get_deal_link(ctx, project_id=project_id)}


@bp.route("/api/projects/{project_id}/deal", methods=["PUT"])
@endpoint(tool="projects", level="update", body=DealLinkPut, response=DealLinkResponse)
def set_deal_link(ctx, project_id: str, body: DealLinkPut):
    """Link a deal to the project, or unlink it with deal_id null"""
    return {"deal_link": service_insights.set_deal_link(ctx, project_id=project_id, data=body)}
