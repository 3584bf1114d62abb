"""The runner (issue 13 item 2): dispatch and approve ask the project's runner after commit; a runner that cannot
be reached marks the run failed; the live adapter against the documented request shape (responses)."""
import json

import pytest
import requests
import responses
from sqlalchemy import select

from chalicelib.areas.agents.models import AgentRun, AgentTask
from chalicelib.core.notify_outbox import messages
from chalicelib.providers.runner import RunnerUnreachable, get_runner
from chalicelib.providers.runner import sandbox as runner_sandbox
from chalicelib.providers.runner.live import HttpRunner
from tests.areas.agents.factories import SECRET, make_agent_task, make_config
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def _setup(db, stage="draft", **config):
    project = make_project(db)
    task, agent = make_agent_task(db, project=project, stage=stage)
    return project, task, agent, make_config(db, project, **config)


def test_dispatch_sends_the_run_to_the_runner_after_commit(api, db, exec_user):
    project, task, agent, config = _setup(db)
    answer = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
    assert answer.status == 200, answer
    run_id = answer.json["run"]["id"]
    [sent] = runner_sandbox.requests_made(db)
    assert sent["runner_url"] == config.runner_url and sent["run_id"] == run_id and sent["stage"] == "scoping"
    assert sent["task_id"] == task.id and sent["project_id"] == project.id
    assert sent["task"]["title"] == task.title and sent["agent"]["stage"] == "scoping"
    assert sent["config"]["repo_name"] == "site" and "runner_secret" not in json.dumps(sent)
    assert sent["callback_url"].endswith("/api/webhooks/agent-callback")
    assert SECRET not in json.dumps(sent) and SECRET not in answer.body.decode()
    run = db.get(AgentRun, run_id)
    db.refresh(run)
    assert run.status == "running" and run.started_at is not None


def test_no_enabled_configuration_refuses_the_move(api, db, exec_user):
    cases = []
    project = make_project(db)
    cases.append(make_agent_task(db, project=project)[0])  # no configuration at all
    disabled = make_project(db)
    make_config(db, disabled, enabled=False)
    cases.append(make_agent_task(db, project=disabled)[0])
    no_secret = make_project(db)
    make_config(db, no_secret, secret=None)
    cases.append(make_agent_task(db, project=no_secret)[0])
    loose, _ = make_agent_task(db)
    loose_task = db.get(type(loose), loose.id)
    loose_task.resource_type, loose_task.resource_id = None, None  # linked to no project
    db.flush()
    cases.append(loose)
    for task in cases:
        answer = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
        assert answer.status == 409, answer
        assert "agent configuration" in answer.json["error"] or "project" in answer.json["error"]
        assert db.scalar(select(AgentTask.stage).where(AgentTask.task_id == task.id)) == "draft"
        assert db.scalars(select(AgentRun).where(AgentRun.task_id == task.id)).all() == []
    assert runner_sandbox.requests_made(db) == []
    approve, _ = make_agent_task(db, project=project, stage="pending_approval")
    assert api.post(f"/api/agent-tasks/{approve.id}/approve", as_=exec_user).status == 409


def test_runner_mode_off_is_503(api, db, exec_user, set_env):
    _project, task, _agent, _config = _setup(db)
    set_env(RUNNER_MODE="off")
    answer = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
    assert answer.status == 503, answer
    assert db.scalar(select(AgentTask.stage).where(AgentTask.task_id == task.id)) == "draft"


def test_an_unreachable_runner_marks_the_run_failed(api, db, exec_user):
    _project, task, agent, _config = _setup(db, runner_url="https://unreachable.runner.test/runs")
    answer = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
    assert answer.status == 200 and answer.json["task"]["agent"]["stage"] == "scoping"
    detail = api.get(f"/api/agent-tasks/{task.id}", as_=exec_user).json
    [run] = detail["runs"]
    assert run["status"] == "failed" and "cannot be reached" in run["error"] and run["finished_at"]
    assert detail["agent"]["stage"] == "draft"  # back where it was: it can be dispatched again
    assert runner_sandbox.requests_made(db) == []


def test_nothing_is_sent_when_the_request_fails(api, db, exec_user, monkeypatch):
    from chalicelib.areas.agents import service_moves
    from chalicelib.core.errors import Conflict

    _project, task, _agent, _config = _setup(db)

    def fail(*args, **kwargs):
        raise Conflict("failing after the run was written")

    monkeypatch.setattr(service_moves, "run_record", fail)  # runs after the run record is flushed
    answer = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
    assert answer.status == 409
    assert runner_sandbox.requests_made(db) == []
    assert db.scalars(select(AgentRun).where(AgentRun.task_id == task.id)).all() == []
    # and a move refused from a wrong stage sends nothing either
    _p, done, _a, _c = _setup(db, stage="done")
    assert api.post(f"/api/agent-tasks/{done.id}/dispatch", as_=exec_user).status == 409
    assert messages(db, provider="runner") == []


def test_runner_modes(set_env):
    assert type(get_runner()).__name__ == "SandboxRunner"
    set_env(RUNNER_MODE="live", RUNNER_TIMEOUT_SECONDS="3")
    runner = get_runner()
    assert isinstance(runner, HttpRunner) and runner.timeout == 3


PAYLOAD = {"run_id": "run-1", "task_id": "t-1", "project_id": "p-1", "stage": "scoping", "task": {"title": "x"}}
URL = "https://runner.agency.test/runs"


@responses.activate
def test_live_runner_sends_the_run():
    responses.add(responses.POST, URL, json={"accepted": True, "job": "j-9"}, status=202)
    answer = HttpRunner(timeout=4).start_run(runner_url=URL, secret=SECRET, payload=PAYLOAD)
    assert answer == {"accepted": True, "job": "j-9"}
    sent = responses.calls[0].request
    assert sent.headers["Authorization"] == f"Bearer {SECRET}" and sent.headers["X-WMS-Run-Id"] == "run-1"
    assert json.loads(sent.body) == PAYLOAD


@pytest.mark.parametrize("reply, message", [
    ({"status": 500, "json": {"error": "boom"}}, "HTTP 500"),
    ({"status": 401, "json": {"error": "bad token"}}, "HTTP 401"),
    ({"status": 429, "headers": {"Retry-After": "30"}}, "retry after 30"),
    ({"body": requests.ConnectionError("refused")}, "cannot be reached"),
    ({"body": requests.ReadTimeout("slow")}, "did not answer within 4 s"),
])
@responses.activate
def test_live_runner_failures(reply, message):
    responses.add(responses.POST, URL, **reply)
    with pytest.raises(RunnerUnreachable, match=message) as caught:
        HttpRunner(timeout=4).start_run(runner_url=URL, secret=SECRET, payload=PAYLOAD)
    assert SECRET not in str(caught.value)


@responses.activate
def test_live_runner_end_to_end_failure_marks_the_run_failed(api, db, exec_user, set_env):
    set_env(RUNNER_MODE="live")
    _project, task, _agent, config = _setup(db)
    responses.add(responses.POST, config.runner_url, status=503)
    answer = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
    assert answer.status == 200
    assert responses.calls[0].request.headers["Authorization"] == f"Bearer {SECRET}"
    run = db.get(AgentRun, answer.json["run"]["id"])
    db.refresh(run)
    assert run.status == "failed" and run.error == "the runner answered HTTP 503"


def test_an_unreachable_runner_tells_of_the_failed_run_once(api, db, exec_user):
    """Session 27: a run the runner could not take is a failed run like one it reported failed: one notice,
    `agent_run_failed` naming the stage the task is back in, to the task's people who read it, else the dispatcher
    (before, only the move back's stage notice, which notify's de-duplication swallowed after the dispatch's own)."""
    from chalicelib.core.notify import Notification

    assignee = make_user(db, access_level="employee", name="Ann Assignee")
    _project, task, _agent, _config = _setup(db, runner_url="https://unreachable.runner.test/runs")
    task.assignee_id = assignee.id
    db.flush()
    assert api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user).status == 200
    db.expire_all()
    told = db.execute(select(Notification.user_id, Notification.type, Notification.body)
                      .where(Notification.resource_id == task.id, Notification.type != "agent_task_stage_changed")
                      .order_by(Notification.created_at)).all()
    assert [(user_id, kind) for user_id, kind, _ in told] == [(assignee.id, "agent_run_failed")], told
    assert "back in draft" in told[0][2]
    # the dispatch's own stage notice (draft to scoping) is the only other: the move back is told by the one above
    assert db.scalars(select(Notification.body).where(Notification.resource_id == task.id,
                                                      Notification.type == "agent_task_stage_changed")).all() == [
        f"{task.title} moved from draft to scoping."]
