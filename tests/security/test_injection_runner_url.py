"""A project's runner_url may be a private address (runners sit in the VPC), but never the cloud metadata service
or another link-local, multicast, reserved or unspecified address (docs/decisions/agents.md). The rule read only
an address written in dotted form: an employee with projects:update on a project of theirs could save
`http://2852039166/` or `http://169.254.43518/` (169.254.169.254 in the older IPv4 forms every resolver still
reads) or a host name resolving to 169.254.169.254, and the dispatch sent the run, with the runner secret as
bearer, to the metadata service. Names are resolved and every address checked, when saved and again just before
the live runner is called (a stored name may resolve elsewhere later)."""
from __future__ import annotations

import pytest
import responses
from sqlalchemy import select

from chalicelib.areas.agents.models import AgentRun
from tests.areas.agents.factories import make_agent_task, make_config
from tests.areas.projects.factories import make_project

SECRET = "a-very-secret-runner-token-123456"


def _put(api, user, project, runner_url):
    return api.put(f"/api/projects/{project.id}/agent-config", as_=user,
                   json={"runner_url": runner_url, "enabled": True, "runner_secret": SECRET})


@pytest.mark.parametrize("runner_url", [
    "http://2852039166/latest/meta-data/",          # 169.254.169.254 as one decimal number
    "http://0xa9fea9fe/latest/meta-data/",          # ... as one hexadecimal number
    "http://169.254.43518/latest/meta-data/",       # ... as a.b.c with a 16-bit last part
    "http://0251.0376.0251.0376/latest/meta-data/",  # ... in octal parts
    "http://[fd00:ec2::254]/latest/meta-data/",     # the metadata service's IPv6 address
])
def test_the_metadata_service_in_another_notation_is_refused(api, db, employee, runner_url):
    project = make_project(db, owner_id=employee.id, members=[employee])
    answer = _put(api, employee, project, runner_url)
    assert answer.status == 400, answer
    assert "runner_url" in [detail["field"] for detail in answer.json["details"]]


def test_a_name_resolving_to_the_metadata_service_is_refused(api, db, employee, _no_dns):
    _no_dns["metadata.attacker.test"] = ["169.254.169.254"]
    _no_dns["runner.in-vpc.test"] = ["10.0.3.7"]  # a private runner stays allowed
    project = make_project(db, owner_id=employee.id, members=[employee])
    answer = _put(api, employee, project, "http://metadata.attacker.test/latest/meta-data/")
    assert answer.status == 400, answer
    assert "runner_url" in [detail["field"] for detail in answer.json["details"]]
    assert _put(api, employee, project, "http://runner.in-vpc.test:8080/runs").status == 200


@responses.activate
def test_a_stored_name_now_resolving_to_the_metadata_service_is_not_called(api, db, exec_user, set_env, _no_dns):
    set_env(RUNNER_MODE="live")
    url = "https://runner.rebinding.test/runs"
    project = make_project(db)
    make_config(db, project, runner_url=url)  # saved while the name resolved to a public address
    task, _agent = make_agent_task(db, project=project)
    _no_dns["runner.rebinding.test"] = ["169.254.169.254"]
    responses.add(responses.POST, url, json={"accepted": True}, status=202)

    answer = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
    assert answer.status == 200, answer
    assert len(responses.calls) == 0
    db.expire_all()
    run = db.scalar(select(AgentRun).where(AgentRun.id == answer.json["run"]["id"]))
    assert run.status == "failed" and "link-local" in (run.error or "")
