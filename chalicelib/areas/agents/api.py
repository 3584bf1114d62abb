"""Agent pipeline routes: agent tasks (tool `tasks`: view reads, update edits and moves), project agent
configuration (tool `projects`: view reads, update writes), the runner callback (the runner's bearer secret,
no user session), and the orchestrator and business agent proxies (tool `tasks`: view reads, manage commands
and triggers)."""
from chalice import Blueprint, Rate

from chalicelib.core.http import endpoint, json_response
from chalicelib.core.schemas import many, one, paged

from . import jobs, service, service_callback, service_config, service_moves, service_proxy
from .schemas import (AgentConfigPut, AgentConfigResponse, AgentStats, AgentStatsQuery, AgentTaskDetail,
                      AgentTaskItemRead, AgentTaskListQuery, AgentTaskMoved, AgentTaskUpdate, BusinessAgentRead,
                      CallbackAnswer, ReasonBody, ReviewApproveBody, UpstreamAnswer)

bp = Blueprint(__name__)


_TEXT = {"type": "string"}
# The callback's body, for the OpenAPI document (written out: building AgentCallback at import would cost every
# cold start; the handler validates with AgentCallback after checking the secret).
CALLBACK_SCHEMA = {
    "type": "object", "required": ["task_id", "project_id", "stage", "status", "run_id"],
    "properties": {
        "task_id": _TEXT, "project_id": _TEXT, "stage": _TEXT, "status": _TEXT, "run_id": _TEXT,
        "result": {"type": "object", "properties": {
            **{name: _TEXT for name in ("scope_document", "effort_estimate", "agent_confidence_note", "branch_name",
                                        "pr_url", "preview_url", "browser_test_status", "browser_test_video_url",
                                        "ci_status", "error")},
            "tokens": {"type": "integer", "minimum": 0}, "cost": {"type": "number", "minimum": 0}}},
    },
}


@bp.route("/api/agent-tasks", methods=["GET"])
@endpoint(tool="tasks", level="view", query=AgentTaskListQuery, response=paged("tasks", AgentTaskItemRead))
def list_agent_tasks(ctx, query: AgentTaskListQuery):
    """Agent tasks the caller may see with their pipeline metadata (filters: project_id, stage as a
    comma-separated list; `limit` at most 500 and `offset`, with `total`)."""
    return service.list_agent_tasks(ctx, query=query).body("tasks")


@bp.route("/api/agent-tasks/stats", methods=["GET"])
@endpoint(tool="tasks", level="view", query=AgentStatsQuery, response=AgentStats)
def agent_task_stats(ctx, query: AgentStatsQuery):
    """Totals of the visible agent tasks (tasks, runs, tokens, cost) and how many sit in each stage."""
    return service.stats(ctx, project_id=query.project_id)


@bp.route("/api/agent-tasks/{agent_task_id}", methods=["GET"])
@endpoint(tool="tasks", level="view", response=AgentTaskDetail)
def get_agent_task(ctx, agent_task_id: str):
    """An agent task: the task, its agent meta record and its recent runs (newest first)."""
    return service.get_detail(ctx, task_id=agent_task_id)


@bp.route("/api/agent-tasks/{agent_task_id}", methods=["PATCH"])
@endpoint(tool="tasks", level="update", body=AgentTaskUpdate, response=one("task", AgentTaskItemRead), errors=(409,))
def update_agent_task(ctx, agent_task_id: str, body: AgentTaskUpdate):
    """Change effort_estimate, scope_document or agent_confidence_note (any other field is ignored).

    The scope document of an approved task (building, review, done) is the approved scope: changing it is 409."""
    return {"task": service.update_agent_task(ctx, task_id=agent_task_id, data=body)}


@bp.route("/api/agent-tasks/{agent_task_id}/dispatch", methods=["POST"])
@endpoint(tool="tasks", level="update", response=AgentTaskMoved, errors=(409, 503))
def dispatch_agent_task(ctx, agent_task_id: str):
    """Move draft or rejected to scoping and send a scoping run to the project's runner (after commit)."""
    return service_moves.dispatch(ctx, task_id=agent_task_id)


@bp.route("/api/agent-tasks/{agent_task_id}/approve", methods=["POST"])
@endpoint(tool="tasks", level="update", response=AgentTaskMoved, errors=(409, 503))
def approve_agent_task(ctx, agent_task_id: str):
    """Move pending_approval to building and send a build run to the project's runner (after commit)."""
    return service_moves.approve(ctx, task_id=agent_task_id)


@bp.route("/api/agent-tasks/{agent_task_id}/reject", methods=["POST"])
@endpoint(tool="tasks", level="update", body=ReasonBody, response=AgentTaskMoved, errors=(409,))
def reject_agent_task(ctx, agent_task_id: str, body: ReasonBody):
    """Move pending_approval to rejected (a reason is required)."""
    return service_moves.reject(ctx, task_id=agent_task_id, reason=body.reason)


@bp.route("/api/agent-tasks/{agent_task_id}/review-approve", methods=["POST"])
@endpoint(tool="tasks", level="update", body=ReviewApproveBody, response=AgentTaskMoved, errors=(409,))
def review_approve_agent_task(ctx, agent_task_id: str, body: ReviewApproveBody):
    """Move review to done when browser_test_status and ci_status are both `passed`, or with force: true."""
    return service_moves.review_approve(ctx, task_id=agent_task_id, force=body.force)


@bp.route("/api/agent-tasks/{agent_task_id}/review-reject", methods=["POST"])
@endpoint(tool="tasks", level="update", body=ReasonBody, response=AgentTaskMoved, errors=(409, 503))
def review_reject_agent_task(ctx, agent_task_id: str, body: ReasonBody):
    """Move review back to building and send a new build run carrying the reason to the project's runner (after
    commit; a reason is required; retry_count + 1)."""
    return service_moves.review_reject(ctx, task_id=agent_task_id, reason=body.reason)


@bp.route("/api/projects/{project_id}/agent-config", methods=["GET"])
@endpoint(tool="projects", level="view", response=AgentConfigResponse)
def get_agent_config(ctx, project_id: str):
    """The project's agent configuration (`config` null when none); the runner secret is never returned."""
    return {"config": service_config.get_config(ctx, project_id=project_id)}


@bp.route("/api/projects/{project_id}/agent-config", methods=["PUT"])
@endpoint(tool="projects", level="update", body=AgentConfigPut, response=AgentConfigResponse)
def put_agent_config(ctx, project_id: str, body: AgentConfigPut):
    """Create or replace the project's agent configuration (runner_secret left out keeps the stored one)."""
    return {"config": service_config.put_config(ctx, project_id=project_id, data=body)}


@bp.route("/api/webhooks/agent-callback", methods=["POST"])
@endpoint(auth="service", response=CallbackAnswer, errors=(401, 404),
          request_content="application/json", request_schema=CALLBACK_SCHEMA)
def agent_callback(ctx):
    """The runner reports a run (Authorization: Bearer <the project's runner secret>); applied once."""
    return service_callback.receive(ctx)


# --- orchestrator proxy and business agents (tool tasks: view reads, manage commands and triggers) ----------

def _answer(result: tuple[int, dict]):
    status, body = result
    return json_response(body, status)


# the upstream's own 4xx pass through (document 1: calls are proxied), the common ones listed; 5xx, non-JSON and
# unreachable are 502, a timeout 504, not configured 503 (service_proxy)
_PROXY_ERRORS = (400, 404, 409, 422, 429, 502, 503, 504)
_PROXY_CREATED = (201, 202)  # a POST's upstream may answer created or accepted
_OBJECT = {"type": "object"}


@bp.route("/api/orchestrator/status", methods=["GET"])
@endpoint(tool="tasks", level="view", response=UpstreamAnswer, errors=_PROXY_ERRORS)
def orchestrator_status(ctx):
    """The orchestrator's status (its `/status`)."""
    return _answer(service_proxy.orchestrator(ctx, "GET", "/status"))


@bp.route("/api/orchestrator/pause", methods=["POST"])
@endpoint(tool="tasks", level="manage", response=UpstreamAnswer, errors=_PROXY_ERRORS, success_also=_PROXY_CREATED,
          request_content="application/json", request_schema=_OBJECT)
def orchestrator_pause(ctx):
    """Pause the orchestrator (its `/pause`)."""
    return _answer(service_proxy.orchestrator(ctx, "POST", "/pause", body=service_proxy.request_body(ctx)))


@bp.route("/api/orchestrator/resume", methods=["POST"])
@endpoint(tool="tasks", level="manage", response=UpstreamAnswer, errors=_PROXY_ERRORS, success_also=_PROXY_CREATED,
          request_content="application/json", request_schema=_OBJECT)
def orchestrator_resume(ctx):
    """Resume the orchestrator (its `/resume`)."""
    return _answer(service_proxy.orchestrator(ctx, "POST", "/resume", body=service_proxy.request_body(ctx)))


@bp.route("/api/orchestrator/restart", methods=["POST"])
@endpoint(tool="tasks", level="manage", response=UpstreamAnswer, errors=_PROXY_ERRORS, success_also=_PROXY_CREATED,
          request_content="application/json", request_schema=_OBJECT)
def orchestrator_restart(ctx):
    """Restart the orchestrator (its `/restart`)."""
    return _answer(service_proxy.orchestrator(ctx, "POST", "/restart", body=service_proxy.request_body(ctx)))


@bp.route("/api/orchestrator/tasks", methods=["GET"])
@endpoint(tool="tasks", level="view", response=UpstreamAnswer, errors=_PROXY_ERRORS)
def orchestrator_tasks(ctx):
    """The orchestrator's tasks (its `/tasks`; query parameters passed on)."""
    return _answer(service_proxy.orchestrator(ctx, "GET", "/tasks", key="tasks",
                                              params=service_proxy.query_params(ctx)))


@bp.route("/api/orchestrator/tasks", methods=["POST"])
@endpoint(tool="tasks", level="manage", response=UpstreamAnswer, errors=_PROXY_ERRORS, success_also=_PROXY_CREATED,
          request_content="application/json", request_schema=_OBJECT)
def create_orchestrator_task(ctx):
    """Give the orchestrator a task (its `/tasks`; the body passed on as sent)."""
    return _answer(service_proxy.orchestrator(ctx, "POST", "/tasks", body=service_proxy.request_body(ctx)))


@bp.route("/api/business-agents", methods=["GET"])
@endpoint(tool="tasks", level="view", response=many("agents", BusinessAgentRead), errors=(503,))
def list_business_agents(ctx):
    """The registered business agents."""
    return {"agents": service_proxy.business_agents(ctx)}


@bp.route("/api/business-agents/{agent_id}/status", methods=["GET"])
@endpoint(tool="tasks", level="view", response=UpstreamAnswer, errors=_PROXY_ERRORS)
def business_agent_status(ctx, agent_id: str):
    """The agent's health check (its `/health`)."""
    return _answer(service_proxy.agent(ctx, agent_id, "GET", "/health"))


@bp.route("/api/business-agents/{agent_id}/command", methods=["POST"])
@endpoint(tool="tasks", level="manage", response=UpstreamAnswer, errors=_PROXY_ERRORS, success_also=_PROXY_CREATED,
          request_content="application/json", request_schema=_OBJECT)
def business_agent_command(ctx, agent_id: str):
    """Send a command to the agent (its `/command`; the body passed on as sent)."""
    return _answer(service_proxy.agent(ctx, agent_id, "POST", "/command", body=service_proxy.request_body(ctx)))


@bp.route("/api/business-agents/{agent_id}/logs", methods=["GET"])
@endpoint(tool="tasks", level="view", response=UpstreamAnswer, errors=_PROXY_ERRORS)
def business_agent_logs(ctx, agent_id: str):
    """The agent's execution history (its `/logs`; query parameters passed on)."""
    return _answer(service_proxy.agent(ctx, agent_id, "GET", "/logs", key="logs",
                                       params=service_proxy.query_params(ctx)))


@bp.route("/api/business-agents/{agent_id}/trigger/{trigger_name}", methods=["POST"])
@endpoint(tool="tasks", level="manage", response=UpstreamAnswer, errors=_PROXY_ERRORS, success_also=_PROXY_CREATED,
          request_content="application/json", request_schema=_OBJECT)
def trigger_business_agent(ctx, agent_id: str, trigger_name: str):
    """Run one of the agent's triggers by name (its `/trigger/<name>`)."""
    return _answer(service_proxy.trigger(ctx, agent_id, trigger_name, service_proxy.request_body(ctx)))


@bp.schedule(Rate(15, unit=Rate.MINUTES))
def agents_stale_runs(event):
    """Give up agent runs the runner took and never reported, and put their tasks back."""
    return jobs.stale_runs()
