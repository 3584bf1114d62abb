"""Session 29 (code no test runs): the agents area's branches the whole suite left unexecuted, run through the
HTTP interface: the config's URL and secret checks, the proxies' limits, an actions agent that refuses or fails
in an unexpected way, a runner call failing in an unexpected way."""

import pytest
import responses
from sqlalchemy import select

from chalicelib.areas.agents.models import AgentRun
from chalicelib.core.history import HistoryEntry
from tests.areas.action_items.factories import make_action_item
from tests.areas.agents.factories import make_agent_task, make_config
from tests.areas.projects.factories import make_project

BASE = {"project_type": "web", "repo_org": "agency", "repo_name": "site", "default_branch": "main",
        "runner_url": "https://runner.agency.test/runs", "enabled": False}


def _put(api, user, project, **fields):
    return api.put(f"/api/projects/{project.id}/agent-config", as_=user, json={**BASE, **fields})


@pytest.mark.parametrize("field, value, message", [
    ("runner_url", "https://runner.agency.test:99999/runs", "must be a valid http or https URL"),
    ("production_url", "https://runner.agency.test:port/", "must be a valid http or https URL"),
    ("production_url", "https://www.client.test/a page", "must not contain spaces"),
    ("preview_url_pattern", "https://{branch}.preview.test:70000", "must be a valid http or https URL"),
    ("runner_secret", " " * 20, "must not be empty"),
])
def test_a_config_with_a_malformed_url_or_a_blank_secret_is_400_naming_the_field(api, db, exec_user, field, value,
                                                                                  message):
    project = make_project(db, owner_id=exec_user.id)
    answer = _put(api, exec_user, project, **{field: value})
    assert answer.status == 400, answer
    assert any(d["field"] == field and message in d["message"] for d in answer.json["details"]), answer.json


def test_a_config_may_leave_the_preview_pattern_and_secret_null(api, db, exec_user):
    project = make_project(db, owner_id=exec_user.id)
    answer = _put(api, exec_user, project, preview_url_pattern=None, runner_secret=None, production_url=None)
    assert answer.status == 200, answer
    config = answer.json["config"]
    assert config["preview_url_pattern"] is None and config["production_url"] is None
    assert config["runner_secret_set"] == 0


def test_too_many_or_too_long_query_parameters_to_a_proxy_are_400(api, db, exec_user):
    many = "&".join(f"p{i}=1" for i in range(21))
    assert api.get(f"/api/orchestrator/tasks?{many}", as_=exec_user).status == 400
    answer = api.get(f"/api/business-agents/actions/logs?q={'x' * 501}", as_=exec_user)
    assert answer.status == 400 and answer.json["error"] == "Too many or too long query parameters"
    # at the limits: passed on
    fine = "&".join(f"p{i}=1" for i in range(20))
    assert api.get(f"/api/orchestrator/tasks?{fine}", as_=exec_user).status == 200


def test_a_business_agent_id_past_100_characters_is_404(api, db, exec_user):
    answer = api.get(f"/api/business-agents/{'a' * 101}/status", as_=exec_user)
    assert answer.status == 404 and answer.json["error"] == "Business agent not found"


def _failures(db, item):
    return db.scalars(select(HistoryEntry).where(HistoryEntry.entity_type == "action_item",
                                                 HistoryEntry.entity_id == item.id,
                                                 HistoryEntry.action == "unstar_failed")).all()


@responses.activate
def test_an_actions_agent_refusing_the_unstar_is_recorded_with_its_message(api, db, employee, set_env):
    set_env(ORCHESTRATOR_MODE="live", BUSINESS_AGENTS="actions=https://actions-agent.agency.test")
    responses.add(responses.POST, "https://actions-agent.agency.test/command", json={"error": "no such message"},
                  status=404)
    item = make_action_item(db, assigned_to=employee.id, source_module="chat", source_id="C1/3")
    assert api.post(f"/api/action-items/{item.id}/complete", as_=employee).status == 200
    [failure] = _failures(db, item)
    assert failure.changes["error"] == "no such message" and failure.changes["source_id"] == "C1/3"


@responses.activate
def test_an_actions_agent_call_failing_unexpectedly_is_recorded_not_raised(api, db, employee, set_env):
    set_env(ORCHESTRATOR_MODE="live", BUSINESS_AGENTS="actions=https://actions-agent.agency.test")
    responses.add(responses.POST, "https://actions-agent.agency.test/command", body=RuntimeError("boom"))
    item = make_action_item(db, assigned_to=employee.id, source_module="mail", source_id="m-3")
    answer = api.post(f"/api/action-items/{item.id}/complete", as_=employee)
    assert answer.status == 200 and answer.json == {"ok": True}
    [failure] = _failures(db, item)
    assert failure.changes["error"] == "the actions agent call failed (RuntimeError)"


@responses.activate
def test_a_runner_call_failing_unexpectedly_fails_the_run_and_puts_the_task_back(api, db, exec_user, set_env):
    set_env(RUNNER_MODE="live")
    project = make_project(db)
    task, _agent = make_agent_task(db, project=project, stage="draft")
    config = make_config(db, project)
    responses.add(responses.POST, config.runner_url, body=RuntimeError("boom"))
    answer = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
    assert answer.status == 200, answer
    run = db.get(AgentRun, answer.json["run"]["id"])
    db.refresh(run)
    assert run.status == "failed" and run.error == "the runner call failed (RuntimeError)"
    assert api.get(f"/api/agent-tasks/{task.id}", as_=exec_user).json["agent"]["stage"] == "draft"
