"""Factories of the agents area: plain functions that add, flush and return."""
from __future__ import annotations

import itertools

from chalicelib.areas.agents.models import AgentRun, AgentTask, ProjectAgentConfig
from chalicelib.core import crypto
from chalicelib.providers.runner import sandbox as runner_sandbox
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task, task_type
from tests.factories import add_row

_seq = itertools.count(1)
SECRET = "runner-secret-" + "s" * 24
CALLBACK = "/api/webhooks/agent-callback"


def make_config(db, project, **overrides) -> ProjectAgentConfig:
    secret = overrides.pop("secret", SECRET)
    values = {"project_id": project.id, "project_type": "web", "repo_org": "agency", "repo_name": "site",
              "default_branch": "main", "runner_url": "https://runner.example.com/runs", "enabled": True,
              "preview_url_pattern": "https://{branch}.preview.example.com",
              "runner_secret_encrypted": crypto.encrypt(secret) if secret else None}
    return add_row(db, ProjectAgentConfig, values, overrides)


def make_agent_task(db, *, project=None, stage: str = "draft", owner=None, **agent_values):
    """An agent task (task + meta) in `project` (a new one when None), created, reported and assigned to
    `owner` when given. Answers (task, agent)."""
    project = project or make_project(db, owner_id=owner.id if owner else None)
    people = {"created_by": owner.id, "reporter_id": owner.id, "assignee_id": owner.id} if owner else {}
    task_values = {key: agent_values.pop(key) for key in list(agent_values)
                   if key in ("assignee_id", "reporter_id", "created_by", "title", "resource_type", "resource_id")}
    task = make_task(db, title=task_values.pop("title", f"Agent task {next(_seq)}"), resource_type="project",
                     resource_id=project.id, type_id=task_type(db, "agent_task").id, **{**people, **task_values})
    agent = AgentTask(task_id=task.id, stage=stage, retry_count=0, **agent_values)
    db.add(agent)
    db.flush()
    return task, agent


def make_run(db, task, **overrides) -> AgentRun:
    values = {"task_id": task.id, "project_id": task.resource_id, "stage": "scoping", "status": "success",
              "tokens": 100, "cost": 0.25}
    return add_row(db, AgentRun, values, overrides)


def configured_agent_task(db, stage: str = "draft", **values):
    """An agent task "Rebuild the checkout" in `stage`, in a new project whose runner is configured (`make_config`);
    `values` go to `make_agent_task` (its people, among them). Answers the task."""
    project = make_project(db)
    make_config(db, project)
    task, _agent = make_agent_task(db, project=project, stage=stage, title="Rebuild the checkout", **values)
    return task


def move_agent_task(api, task, move, user, **body):
    """POST /api/agent-tasks/<id>/<move> as `user` (`body` as its JSON, none when empty), answered 200: answers
    the JSON."""
    answer = api.post(f"/api/agent-tasks/{task.id}/{move}", json=body or None, as_=user)
    assert answer.status == 200, answer
    return answer.json


def dispatch_run(api, task, dispatcher) -> str:
    """`task` dispatched by `dispatcher` (answered 200): answers the id of the scoping run it started."""
    return move_agent_task(api, task, "dispatch", dispatcher)["run"]["id"]


def deliver_report(api, db, run_id, status, **result):
    """The runner's signed report of run `run_id` (`status`, `result` its results, none when empty) sent to the
    callback, answered 200. Answers (answer, headers, body): the answer, and the delivery to send again."""
    headers, body = runner_sandbox.callback_for(db, run_id, status=status, result=result or None)
    reported = api.post(CALLBACK, json=body, headers=headers)
    assert reported.status == 200, reported
    return reported, headers, body


def report_run(api, db, run_id, status, **result):
    """`deliver_report`, answering the answer's JSON."""
    return deliver_report(api, db, run_id, status, **result)[0].json
