"""The runner callback (issue 13 item 4): POST /api/webhooks/agent-callback with the project's runner secret."""
import logging

import pytest
from sqlalchemy import func, select

from chalicelib.areas.agents.models import AgentRun
from chalicelib.core.history import HistoryEntry
from chalicelib.core.notify import Notification
from chalicelib.providers.runner import sandbox as runner_sandbox
from tests.areas.agents.factories import SECRET, make_agent_task, make_config, make_run
from tests.areas.projects.factories import make_project
from tests.factories import make_user

PATH = "/api/webhooks/agent-callback"


def _post(api, body, secret=SECRET, headers=None):
    headers = dict(headers or {})
    if secret is not None:
        headers["Authorization"] = f"Bearer {secret}"
    return api.post(PATH, json=body, headers=headers)


def _dispatched(api, db, exec_user, **people):
    project = make_project(db)
    make_config(db, project)
    task, agent = make_agent_task(db, project=project, stage="draft", **people)
    answer = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
    assert answer.status == 200, answer
    return project, task, agent, answer.json["run"]["id"]


def test_the_sandbox_runner_reports_back_through_the_route(api, db, exec_user, caplog):
    caplog.set_level(logging.DEBUG)
    reporter, assignee = make_user(db), make_user(db)
    project, task, agent, run_id = _dispatched(api, db, exec_user, reporter_id=reporter.id, assignee_id=assignee.id)
    headers, body = runner_sandbox.callback_for(db, run_id, status="success", result={
        "scope_document": "# Scope\nBuild it", "effort_estimate": "M", "tokens": 1200, "cost": 0.42})
    answer = api.post(PATH, json=body, headers=headers)
    assert answer.status == 200, answer
    assert answer.json == {"ok": True, "task_id": task.id, "run_id": run_id, "stage": "pending_approval",
                           "run_status": "success", "duplicate": 0}
    detail = api.get(f"/api/agent-tasks/{task.id}", as_=exec_user).json
    assert detail["agent"]["stage"] == "pending_approval" and detail["agent"]["scope_document"] == "# Scope\nBuild it"
    assert detail["agent"]["effort_estimate"] == "M"
    [run] = detail["runs"]
    assert (run["status"], run["tokens"], run["cost"]) == ("success", 1200, 0.42) and run["finished_at"]
    moved = db.scalars(select(HistoryEntry).where(HistoryEntry.entity_id == task.id,
                                                  HistoryEntry.action == "agent_stage_changed")
                       .order_by(HistoryEntry.created_at)).all()
    assert [e.changes["stage"]["to"] for e in moved] == ["scoping", "pending_approval"]
    assert moved[-1].actor_id is None and moved[-1].changes["run_id"] == run_id
    notified = db.scalars(select(Notification.user_id).where(Notification.resource_id == task.id,
                                                             Notification.type == "agent_task_stage_changed")).all()
    # dispatch, then the report moments later: the report's notice falls in the 5-minute de-duplication window
    # (document 3: per user, type and resource), so each person holds one
    assert sorted(notified) == sorted([reporter.id, assignee.id])

    # the build: approve, then the runner's proof of work moves it to review
    approved = api.post(f"/api/agent-tasks/{task.id}/approve", as_=exec_user).json
    build_id = approved["run"]["id"]
    headers, body = runner_sandbox.callback_for(db, build_id, result={
        "branch_name": "agent/landing", "pr_url": "https://git.test/pr/1", "preview_url": "https://agent-landing.test",
        "browser_test_status": "passed", "browser_test_video_url": "https://videos.test/1.mp4", "ci_status": "passed"})
    built = api.post(PATH, json=body, headers=headers)
    assert built.json["stage"] == "review"
    agent_now = api.get(f"/api/agent-tasks/{task.id}", as_=exec_user).json["agent"]
    assert agent_now["branch_name"] == "agent/landing" and agent_now["ci_status"] == "passed"
    assert api.post(f"/api/agent-tasks/{task.id}/review-approve", as_=exec_user).json["task"]["agent"]["stage"] == "done"
    assert SECRET not in caplog.text


def test_wrong_secret_unknown_project_and_other_projects_secret_are_401(api, db, exec_user):
    project, task, agent, run_id = _dispatched(api, db, exec_user)
    other = make_project(db)
    make_config(db, other, secret="the-other-projects-secret-0001")
    body = {"task_id": task.id, "project_id": project.id, "stage": "scoping", "status": "success", "run_id": run_id}
    answers = [
        _post(api, body, secret="wrong-secret-wrong-secret"),
        _post(api, body, secret="the-other-projects-secret-0001"),
        _post(api, {**body, "project_id": "no-such-project"}),
        _post(api, body, secret=None),
        _post(api, body, secret=None, headers={"Authorization": f"Basic {SECRET}"}),
        _post(api, {**body, "project_id": None}),
        _post(api, {**body, "project_id": 5}),
    ]
    for answer in answers:
        assert answer.status == 401, answer
    assert {a.json["error"] for a in answers[:3] + answers[5:]} == {"Invalid runner credentials"}
    # the other project's secret, naming the other project, still cannot touch this project's task
    wrong_project = _post(api, {**body, "project_id": other.id}, secret="the-other-projects-secret-0001")
    assert wrong_project.status == 404
    assert db.scalar(select(AgentRun.status).where(AgentRun.id == run_id)) == "running"
    assert api.get(f"/api/agent-tasks/{task.id}", as_=exec_user).json["agent"]["stage"] == "scoping"


def test_a_replayed_delivery_has_one_effect(api, db, exec_user):
    project, task, agent, run_id = _dispatched(api, db, exec_user)
    body = {"task_id": task.id, "project_id": project.id, "stage": "scoping", "status": "success", "run_id": run_id,
            "result": {"tokens": 10, "cost": 0.1, "scope_document": "first"}}
    first = _post(api, body)
    again = _post(api, {**body, "result": {"tokens": 99, "scope_document": "second"}})
    assert first.json["duplicate"] == 0 and again.status == 200 and again.json["duplicate"] == 1
    assert again.json["stage"] == "pending_approval"
    detail = api.get(f"/api/agent-tasks/{task.id}", as_=exec_user).json
    assert detail["agent"]["scope_document"] == "first" and detail["runs"][0]["tokens"] == 10
    reports = db.scalar(select(func.count()).select_from(HistoryEntry).where(
        HistoryEntry.entity_id == task.id, HistoryEntry.action == "agent_run_reported"))
    assert reports == 1


def test_a_failed_report_records_the_run_and_puts_the_task_back(api, db, exec_user):
    project, task, agent, run_id = _dispatched(api, db, exec_user)
    running = _post(api, {"task_id": task.id, "project_id": project.id, "stage": "scoping", "status": "running",
                          "run_id": run_id, "result": {"tokens": 5}})
    assert running.json["run_status"] == "running" and running.json["stage"] == "scoping"
    failed = _post(api, {"task_id": task.id, "project_id": project.id, "stage": "scoping", "status": "failed",
                         "run_id": run_id, "result": {"tokens": 50, "cost": 0.05, "error": "the model gave up"}})
    # back in the stage the dispatch left (session 26: scoping has no move out of it)
    assert failed.status == 200 and failed.json["stage"] == "draft" and failed.json["run_status"] == "failed"
    [run] = api.get(f"/api/agent-tasks/{task.id}", as_=exec_user).json["runs"]
    assert (run["status"], run["error"], run["tokens"]) == ("failed", "the model gave up", 50) and run["finished_at"]


def test_the_report_must_name_a_run_of_the_task_and_its_stage(api, db, exec_user):
    project, task, agent, run_id = _dispatched(api, db, exec_user)
    body = {"task_id": task.id, "project_id": project.id, "stage": "scoping", "status": "success", "run_id": run_id}
    elsewhere, _ = make_agent_task(db, project=make_project(db))
    assert _post(api, {**body, "task_id": elsewhere.id}).status == 404  # a task of another project
    sibling, _ = make_agent_task(db, project=project)
    other_run = make_run(db, sibling)
    assert _post(api, {**body, "run_id": other_run.id}).status == 404  # a run of another task
    wrong_stage = _post(api, {**body, "stage": "building"})
    assert wrong_stage.status == 400 and wrong_stage.json["details"][0]["field"] == "stage"
    for broken in ({**body, "status": ""}, {**body, "result": {"tokens": -1}}, {**body, "result": {"cost": True}},
                   {k: v for k, v in body.items() if k != "run_id"}, {**body, "result": "text"}):
        assert _post(api, broken).status == 400, broken
    # a body that is not JSON names no project, so the secret cannot be checked: 401, not 400 (see below)
    not_json = api.post(PATH, body=b"{nope", headers={"Authorization": f"Bearer {SECRET}",
                                                       "Content-Type": "application/json"})
    assert not_json.status == 401


def test_no_bearer_is_refused_before_the_body_is_read(api, db, exec_user):
    project, task, agent, run_id = _dispatched(api, db, exec_user)
    for raw in (b"{nope", b"\xff\xfe", b"[" * 100000, b'{"project_id": "a\\u0000b"}', b""):
        answer = api.post(PATH, body=raw, headers={"Content-Type": "application/json"})
        assert answer.status == 401, (raw[:20], answer)
        assert answer.json["error"] == "A runner callback needs Authorization: Bearer <runner secret>"
    assert db.scalar(select(AgentRun.status).where(AgentRun.id == run_id)) == "running"


def test_credentials_are_checked_before_the_body_is_validated(api, db, exec_user):
    """The secret belongs to the project the body names (document 1, Runner callback): a body that cannot be read
    names none, so its credentials cannot be verified: the same 401 as an unknown project. The body's own
    problems answer 400 only once the secret matched."""
    project, task, agent, run_id = _dispatched(api, db, exec_user)
    body = {"task_id": task.id, "project_id": project.id, "stage": "scoping", "status": "success", "run_id": run_id}
    good = {"Authorization": f"Bearer {SECRET}", "Content-Type": "application/json"}
    wrong = {**good, "Authorization": "Bearer wrong-secret-wrong-secret"}
    deep = b'{"project_id": "' + project.id.encode() + b'", "result": ' + b"[" * 70 + b"]" * 70 + b"}"
    refused = [
        api.post(PATH, body=b"{nope", headers=good),  # not JSON
        api.post(PATH, body=b'{"project_id": "' + project.id.encode() + b'"', headers=good),  # cut short
        api.post(PATH, body=b"\xff\xfe{}", headers=good),  # not UTF-8
        api.post(PATH, body=b"[" * 100000 + b"]" * 100000, headers=good),  # too deep for the parser
        api.post(PATH, body=b"", headers=good),  # empty: no project
        api.post(PATH, json=[body], headers=good),  # not an object
        api.post(PATH, json={**body, "project_id": project.id[:-1] + "\x00"}, headers=good),  # NUL: no project
        api.post(PATH, json={**body, "stage": "scoping\x00"}, headers=wrong),  # a bad value, a wrong secret
        api.post(PATH, body=deep, headers=wrong),  # nested too deep, a wrong secret
    ]
    for answer in refused:
        assert answer.status == 401, answer
        assert answer.json["error"] == "Invalid runner credentials"
    # the right secret for the project named: now the body's problems are 400s naming them
    nul = api.post(PATH, json={**body, "stage": "scoping\x00"}, headers=good)
    assert nul.status == 400 and nul.json["details"][0]["field"] == "stage", nul
    too_deep = api.post(PATH, body=deep, headers=good)
    assert too_deep.status == 400 and "nested deeper" in too_deep.json["error"], too_deep
    assert db.scalar(select(AgentRun.status).where(AgentRun.id == run_id)) == "running"
    assert api.post(PATH, json=body, headers=good).json["stage"] == "pending_approval"


def test_a_stale_success_leaves_the_stage(api, db, exec_user):
    project, task, agent, run_id = _dispatched(api, db, exec_user)
    db.refresh(agent)
    agent.stage = "rejected"
    db.flush()
    answer = _post(api, {"task_id": task.id, "project_id": project.id, "stage": "scoping", "status": "success",
                         "run_id": run_id})
    assert answer.status == 200 and answer.json["stage"] == "rejected" and answer.json["run_status"] == "success"


@pytest.mark.parametrize("secret_in", ["header"])
def test_the_secret_is_never_logged(api, db, exec_user, caplog, capsys, secret_in):
    caplog.set_level(logging.DEBUG)
    project, task, agent, run_id = _dispatched(api, db, exec_user)
    _post(api, {"task_id": task.id, "project_id": project.id, "stage": "scoping", "status": "success",
                "run_id": run_id})
    _post(api, {"task_id": task.id, "project_id": project.id, "stage": "scoping", "status": "success",
                "run_id": run_id}, secret=SECRET + "x")
    out = capsys.readouterr()
    assert SECRET not in caplog.text and SECRET not in out.out and SECRET not in out.err


def test_tokens_past_what_the_run_holds_are_a_400_naming_the_field(api, db, exec_user):
    """The run's token count is a 32-bit integer: a report past 2,147,483,647 tokens is a 400 naming
    result.tokens (it was accepted up to 10^12 and then refused by the database without saying which value), and
    the largest count that fits is kept."""
    project, task, agent, run_id = _dispatched(api, db, exec_user)
    headers, body = runner_sandbox.callback_for(db, run_id, status="running", result={"tokens": 2**31})
    answer = api.post(PATH, json=body, headers=headers)
    assert answer.status == 400, answer
    assert answer.json["details"][0]["field"] == "result.tokens"
    headers, body = runner_sandbox.callback_for(db, run_id, status="running", result={"tokens": 2**31 - 1})
    answer = api.post(PATH, json=body, headers=headers)
    assert answer.status == 200, answer
    assert db.get(AgentRun, run_id).tokens == 2**31 - 1


def test_only_the_latest_run_of_the_stage_moves_the_task(api, db, exec_user):
    """A run given up on (its runner call failed, so the task went back to its stage and was dispatched again) may
    still report late. Its report is recorded, but only the task's latest run of the stage moves the task: a late
    success of the earlier run moved it past the run now in progress."""
    from datetime import timedelta

    from chalicelib.core.ids import utcnow

    project, task, agent, first = _dispatched(api, db, exec_user)
    db.execute(AgentRun.__table__.update().where(AgentRun.id == first).values(status="failed",
                                                                                created_at=utcnow() - timedelta(hours=1)))
    latest = make_run(db, task, stage="scoping", status="running")
    body = {"task_id": task.id, "project_id": project.id, "stage": "scoping", "status": "success"}
    late = _post(api, {**body, "run_id": first})
    # the run ended (failed): its late success does not reopen it (session 27)
    assert late.status == 200 and late.json["stage"] == "scoping" and late.json["run_status"] == "failed"
    current = _post(api, {**body, "run_id": latest.id})
    assert current.status == 200 and current.json["stage"] == "pending_approval"


def test_only_the_latest_build_run_writes_the_proof_of_work(api, db, exec_user):
    """Starting a build clears the proof of work of an earlier one (docs/decisions/agents.md), and review -> done
    without `force` needs browser_test_status and ci_status `passed`. A build given up on (its runner could not be
    reached, so the task went back to pending_approval and was approved again) may still report late with both
    `passed`: its report is recorded on its own run, but writes none of its results onto the task (before, they
    landed during the new build, which then went to done on the old build's proof). The latest build's own report
    still writes them."""
    project = make_project(db)
    config = make_config(db, project, runner_url="https://unreachable.runner.test/runs")
    task, _agent = make_agent_task(db, project=project, stage="pending_approval")
    given_up = api.post(f"/api/agent-tasks/{task.id}/approve", as_=exec_user)
    assert given_up.status == 200, given_up
    first = given_up.json["run"]["id"]
    assert api.get(f"/api/agent-tasks/{task.id}", as_=exec_user).json["agent"]["stage"] == "pending_approval"
    config.runner_url = "https://runner.example.com/runs"
    db.flush()
    again = api.post(f"/api/agent-tasks/{task.id}/approve", as_=exec_user)
    assert again.status == 200, again
    second = again.json["run"]["id"]
    body = {"task_id": task.id, "project_id": project.id, "stage": "building", "status": "success"}
    late = _post(api, {**body, "run_id": first, "result": {
        "browser_test_status": "passed", "ci_status": "passed", "pr_url": "https://git.example.com/pr/1",
        "branch_name": "agent/old", "tokens": 300, "cost": 0.3}})
    # the run given up on ended (failed): its late success does not reopen it (session 27)
    assert late.status == 200 and late.json["stage"] == "building" and late.json["run_status"] == "failed", late
    detail = api.get(f"/api/agent-tasks/{task.id}", as_=exec_user).json
    gates = ("browser_test_status", "ci_status", "pr_url", "branch_name")
    assert [detail["agent"][name] for name in gates] == [None, None, None, None], detail["agent"]
    old_run = next(run for run in detail["runs"] if run["id"] == first)
    assert (old_run["status"], old_run["tokens"], old_run["cost"]) == ("failed", 300, 0.3)  # spend recorded on its run

    current = _post(api, {**body, "run_id": second, "result": {"branch_name": "agent/new",
                                                               "pr_url": "https://git.example.com/pr/2"}})
    assert current.status == 200 and current.json["stage"] == "review", current
    agent_now = api.get(f"/api/agent-tasks/{task.id}", as_=exec_user).json["agent"]
    assert [agent_now[name] for name in gates] == [None, None, "https://git.example.com/pr/2", "agent/new"]
    refused = api.post(f"/api/agent-tasks/{task.id}/review-approve", as_=exec_user, json={})
    assert refused.status == 409, refused
    assert sorted(d["field"] for d in refused.json["details"]) == ["browser_test_status", "ci_status"]

    # a rebuild whose own report passes both gates can be approved without force
    rebuilt = api.post(f"/api/agent-tasks/{task.id}/review-reject", as_=exec_user, json={"reason": "no tests ran"})
    assert rebuilt.status == 200 and rebuilt.json["run"], rebuilt
    passed = _post(api, {**body, "run_id": rebuilt.json["run"]["id"],
                         "result": {"browser_test_status": "passed", "ci_status": "passed"}})
    assert passed.status == 200 and passed.json["stage"] == "review", passed
    done = api.post(f"/api/agent-tasks/{task.id}/review-approve", as_=exec_user, json={})
    assert done.status == 200 and done.json["task"]["agent"]["stage"] == "done", done
