"""Factories of the agents area: plain functions that add, flush and return."""
from __future__ import annotations

import itertools

from chalicelib.areas.agents.models import AgentRun, AgentTask, ProjectAgentConfig
from chalicelib.core import crypto
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task, task_type

_seq = itertools.count(1)
SECRET = "runner-secret-" + "s" * 24


def make_config(db, project, **overrides) -> ProjectAgentConfig:
    secret = overrides.pop("secret", SECRET)
    values = {"project_id": project.id, "project_type": "web", "repo_org": "agency", "repo_name": "site",
              "default_branch": "main", "runner_url": "https://runner.example.com/runs", "enabled": True,
              "preview_url_pattern": "https://{branch}.preview.example.com",
              "runner_secret_encrypted": crypto.encrypt(secret) if secret else None}
    values.update(overrides)
    config = ProjectAgentConfig(**values)
    db.add(config)
    db.flush()
    return config


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
    values.update(overrides)
    run = AgentRun(**values)
    db.add(run)
    db.flush()
    return run
