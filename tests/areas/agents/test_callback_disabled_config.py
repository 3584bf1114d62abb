"""Session 22: a disabled project agent configuration refuses runner callbacks like a wrong secret."""
from sqlalchemy import select

from chalicelib.areas.agents.models import AgentRun
from chalicelib.providers.runner import sandbox as runner_sandbox
from tests.areas.agents.factories import make_agent_task, make_config
from tests.areas.projects.factories import make_project

PATH = "/api/webhooks/agent-callback"
CONFIG = {"runner_url": "https://runner.example.com/runs"}


def _dispatched(api, db, exec_user):
    project = make_project(db)
    make_config(db, project)
    task, _agent = make_agent_task(db, project=project, stage="draft")
    answer = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
    assert answer.status == 200, answer
    return project, task, answer.json["run"]["id"]


def test_a_disabled_configuration_refuses_the_callback_with_the_same_401(api, db, exec_user):
    project, task, run_id = _dispatched(api, db, exec_user)
    put = api.put(f"/api/projects/{project.id}/agent-config", as_=exec_user, json={**CONFIG, "enabled": False})
    assert put.status == 200 and put.json["config"]["enabled"] == 0 and put.json["config"]["runner_secret_set"] == 1
    headers, body = runner_sandbox.callback_for(db, run_id, status="success", result={
        "scope_document": "# injected after disable", "effort_estimate": "XL"})
    answer = api.post(PATH, json=body, headers=headers)
    wrong = api.post(PATH, json=body, headers={"Authorization": "Bearer wrong-secret-wrong-secret"})
    assert answer.status == 401 and answer.json == wrong.json, (answer, wrong)
    # an invalid body is refused the same way: nothing tells the caller the secret was right
    invalid = api.post(PATH, json={"project_id": project.id, "stage": "nope"}, headers=headers)
    assert invalid.status == 401 and invalid.json == wrong.json, invalid
    detail = api.get(f"/api/agent-tasks/{task.id}", as_=exec_user).json
    assert detail["agent"]["stage"] == "scoping" and detail["agent"]["scope_document"] != "# injected after disable"
    assert db.scalar(select(AgentRun.status).where(AgentRun.id == run_id)) == "running"

    # enabled again: the runner's report is accepted
    again = api.put(f"/api/projects/{project.id}/agent-config", as_=exec_user, json={**CONFIG, "enabled": True})
    assert again.status == 200, again
    accepted = api.post(PATH, json=body, headers=headers)
    assert accepted.status == 200 and accepted.json["stage"] == "pending_approval", accepted
