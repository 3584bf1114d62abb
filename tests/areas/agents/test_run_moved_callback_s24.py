"""Session 24: the runner callback checks the project the run was sent to (AgentRun.project_id), not the task's
current project: a task moved to another project mid-run still hears from the runner it was sent to, and the new
project's secret cannot report a run sent elsewhere."""
from chalicelib.areas.agents.models import AgentRun, AgentTask
from chalicelib.providers.runner import sandbox as runner_sandbox
from tests.areas.agents.factories import make_agent_task, make_config
from tests.areas.projects.factories import make_project

PATH = "/api/webhooks/agent-callback"
OTHER_SECRET = "other-runner-secret-" + "o" * 20


def _dispatched_then_moved(api, db, exec_user):
    first, second = make_project(db), make_project(db)
    make_config(db, first)
    make_config(db, second, secret=OTHER_SECRET, runner_url="https://other-runner.example.com/runs")
    task, agent = make_agent_task(db, project=first, stage="draft")
    answer = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
    assert answer.status == 200, answer
    run_id = answer.json["run"]["id"]
    moved = api.put(f"/api/tasks/{task.id}", as_=exec_user,
                    json={"resource_type": "project", "resource_id": second.id})
    assert moved.status == 200, moved
    return first, second, task, agent, run_id


def test_runner_report_after_task_moved_to_another_project_is_applied_callback_s24(api, db, exec_user):
    first, second, task, agent, run_id = _dispatched_then_moved(api, db, exec_user)
    headers, body = runner_sandbox.callback_for(db, run_id, status="success", result={"scope_document": "the scope"})
    assert body["project_id"] == first.id
    report = api.post(PATH, json=body, headers=headers)
    assert report.status == 200, (report.status, report.json)
    assert report.json["stage"] == "pending_approval"
    run = db.get(AgentRun, run_id)
    db.refresh(run)
    assert run.status == "success"
    meta = db.get(AgentTask, agent.id)
    db.refresh(meta)
    assert meta.stage == "pending_approval"
    assert meta.scope_document == "the scope"
    # repeated: once per (run, stage, status)
    again = api.post(PATH, json=body, headers=headers)
    assert again.status == 200 and again.json["duplicate"] == 1


def test_other_projects_secret_cannot_report_run_sent_elsewhere_callback_s24(api, db, exec_user):
    first, second, task, agent, run_id = _dispatched_then_moved(api, db, exec_user)
    body = {"task_id": task.id, "run_id": run_id, "project_id": second.id, "stage": "scoping", "status": "success",
            "result": {"scope_document": "from the other runner"}}
    report = api.post(PATH, json=body, headers={"Authorization": f"Bearer {OTHER_SECRET}"})
    assert report.status in (401, 404), (report.status, report.json)
    run = db.get(AgentRun, run_id)
    db.refresh(run)
    assert run.status != "success"
    meta = db.get(AgentTask, agent.id)
    db.refresh(meta)
    assert meta.stage == "scoping" and meta.scope_document != "from the other runner"
