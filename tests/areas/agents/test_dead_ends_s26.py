"""Session 26's dead-end states of an agent task (docs/decisions/agents.md):

1. review-reject with the project's runner not configured moved the task to building with no run, and nothing leaves
   building but a runner report of its latest build run: now it is refused (409, 503 with RUNNER_MODE=off) before
   anything is written, as dispatch and approve are;
2. a run the runner accepted and never reports left the task in scoping or building for good: the scheduled job
   agents-stale-runs gives up on the task's latest run of its stage once it is queued or running for longer than
   STALE_RUN_MINUTES, and puts the task back as a runner's `failed` report does.
"""
import json
from datetime import timedelta

from sqlalchemy import select, update

from chalicelib.areas.agents import jobs
from chalicelib.areas.agents.models import AgentRun, AgentTask, ProjectAgentConfig
from chalicelib.core.history import HistoryEntry
from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from chalicelib.providers.runner import sandbox as runner_sandbox
from tests.areas.agents.factories import configured_agent_task, make_agent_task, make_config, make_run, move_agent_task
from tests.areas.projects.factories import make_project
from tests.factories import make_user

CALLBACK = "/api/webhooks/agent-callback"
GIVEN_UP = f"the runner did not report in {jobs.STALE_RUN_MINUTES} minutes"


def _age(db, run_id, minutes=jobs.STALE_RUN_MINUTES + 1):
    # created and last heard of `minutes` ago (the stale clock runs from the last report since session 27)
    db.execute(update(AgentRun).where(AgentRun.id == run_id)
               .values(created_at=utcnow() - timedelta(minutes=minutes),
                       last_report_at=utcnow() - timedelta(minutes=minutes)))
    db.flush()


def _state(db, task):
    db.expire_all()
    stage = db.scalar(select(AgentTask.stage).where(AgentTask.task_id == task.id))
    runs = db.execute(select(AgentRun.id, AgentRun.status, AgentRun.error).where(AgentRun.task_id == task.id)
                      .order_by(AgentRun.created_at, AgentRun.id)).all()
    moves = [(e.changes["stage"]["from"], e.changes["stage"]["to"], e.changes.get("run_id"), e.changes.get("reason"),
              e.actor_id)
             for e in db.scalars(select(HistoryEntry).where(HistoryEntry.entity_id == task.id,
                                                            HistoryEntry.action == "agent_stage_changed")
                                 .order_by(HistoryEntry.created_at, HistoryEntry.id))]
    notices = sorted((n.user_id, n.type, n.body) for n in db.scalars(
        select(Notification).where(Notification.resource_id == task.id)))
    return stage, [tuple(r) for r in runs], moves, notices


# 1. review-reject needs the runner ----------------------------------------------------------------------------------

def test_review_reject_without_a_runner_is_refused_and_writes_nothing(api, db, exec_user):
    project = make_project(db)
    make_config(db, project, enabled=False)
    task, _agent = make_agent_task(db, project=project, stage="review")
    before = _state(db, task)
    answer = api.post(f"/api/agent-tasks/{task.id}/review-reject", json={"reason": "misaligned"}, as_=exec_user)
    assert answer.status == 409, answer
    assert "agent configuration" in answer.json["error"]
    assert _state(db, task) == before  # still in review, no run, no history, nobody told
    assert db.scalar(select(AgentTask.retry_count).where(AgentTask.task_id == task.id)) == 0
    # a task outside any project: the same refusal
    bare, _ = make_agent_task(db, stage="review")
    bare.resource_type = bare.resource_id = None
    db.flush()
    assert api.post(f"/api/agent-tasks/{bare.id}/review-reject", json={"reason": "no"}, as_=exec_user).status == 409
    # the runner configured again: review-reject starts the rebuild
    db.execute(update(ProjectAgentConfig).where(ProjectAgentConfig.project_id == project.id).values(enabled=True))
    db.flush()
    moved = move_agent_task(api, task, "review-reject", exec_user, reason="misaligned")
    assert moved["run"]["stage"] == "building" and moved["run"]["feedback"] == "misaligned"
    assert moved["task"]["agent"]["retry_count"] == 1


def test_review_reject_with_the_runner_off_is_503_and_writes_nothing(api, db, exec_user, set_env):
    task = configured_agent_task(db, stage="review")
    before = _state(db, task)
    set_env(RUNNER_MODE="off")
    answer = api.post(f"/api/agent-tasks/{task.id}/review-reject", json={"reason": "misaligned"}, as_=exec_user)
    assert answer.status == 503, answer
    assert _state(db, task) == before


# 2. the stale-runs job -----------------------------------------------------------------------------------------------

def test_a_run_that_never_reports_is_given_up_through_the_scheduled_handler(api, db, client, exec_user):
    assignee = make_user(db)
    task = configured_agent_task(db, assignee_id=assignee.id)
    run_id = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    assert _state(db, task)[1] == [(run_id, "running", None)]  # the runner took it, and will never report
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    # not yet stale: nothing
    _age(db, run_id, minutes=jobs.STALE_RUN_MINUTES - 5)
    assert client.lambda_.invoke("agents_stale_runs", event).payload == {"given_up": 0}
    assert _state(db, task)[0] == "scoping"
    _age(db, run_id)
    assert client.lambda_.invoke("agents_stale_runs", event).payload == {"given_up": 1}
    stage, runs, moves, notices = first = _state(db, task)
    assert stage == "draft" and runs == [(run_id, "failed", GIVEN_UP)]
    assert moves == [("draft", "scoping", None, None, exec_user.id), ("scoping", "draft", run_id, GIVEN_UP, None)]
    assert notices == [
        (assignee.id, "agent_run_failed", "The scoping run of Rebuild the checkout failed; the task is back in draft."),
        (assignee.id, "agent_task_stage_changed", "Rebuild the checkout moved from draft to scoping."),
    ]  # the move back is within 5 minutes of the dispatch's notice: de-duplicated (the history keeps both)
    # run again: one effect
    assert client.lambda_.invoke("agents_stale_runs", event).payload == {"given_up": 0}
    assert _state(db, task) == first
    # the task can be sent again
    again = move_agent_task(api, task, "dispatch", exec_user)
    assert again["run"]["id"] != run_id and again["task"]["agent"]["stage"] == "scoping"


def test_the_job_is_listed_and_runs_by_hand_for_a_build_and_a_rebuild(api, db, capsys, exec_user):
    from chalicelib import cli

    build_task = configured_agent_task(db, stage="pending_approval")
    build = move_agent_task(api, build_task, "approve", exec_user)["run"]["id"]
    rebuild_task = configured_agent_task(db, stage="review")
    rebuild = move_agent_task(api, rebuild_task, "review-reject", exec_user, reason="the footer")["run"]["id"]
    _age(db, build)
    _age(db, rebuild)
    capsys.readouterr()
    assert cli.main(["job", "--list"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("agents-stale-runs")]
    assert len(listed) == 1 and "rate(15 minutes)" in listed[0], listed
    assert cli.main(["job", "agents-stale-runs"]) == 0
    assert json.loads(capsys.readouterr().out) == {"given_up": 2}
    assert _state(db, build_task)[0] == "pending_approval"
    assert _state(db, build_task)[2][-1] == ("building", "pending_approval", build, GIVEN_UP, None)
    assert _state(db, rebuild_task)[0] == "review"
    assert _state(db, rebuild_task)[2][-1] == ("building", "review", rebuild, GIVEN_UP, None)
    assert cli.main(["job", "agents-stale-runs"]) == 0
    assert json.loads(capsys.readouterr().out) == {"given_up": 0}
    move_agent_task(api, build_task, "approve", exec_user)
    move_agent_task(api, rebuild_task, "review-reject", exec_user, reason="again")


def test_only_the_latest_run_of_the_tasks_stage_waiting_too_long_is_given_up(api, db, exec_user):
    old = jobs.STALE_RUN_MINUTES + 60
    # a queued run (the call after commit never finished) of a task in scoping: given up
    queued_task = configured_agent_task(db, stage="scoping")
    queued = make_run(db, queued_task, status="queued", tokens=0, cost=0)
    _age(db, queued.id, old)
    # a run already failed, a finished one, a young one: untouched
    failed_task = configured_agent_task(db, stage="scoping")
    _age(db, make_run(db, failed_task, status="failed", error="boom").id, old)
    young_task = configured_agent_task(db, stage="scoping")
    make_run(db, young_task, status="running")
    # an old running run that is not the task's latest of its stage (a newer one runs): the newer one decides
    superseded_task = configured_agent_task(db, stage="scoping")
    superseded = make_run(db, superseded_task, status="running")
    _age(db, superseded.id, old)
    make_run(db, superseded_task, status="running")
    # an old running scoping run of a task no longer in scoping (rejected by hand meanwhile): nothing waits on it
    moved_task = configured_agent_task(db, stage="rejected")
    _age(db, make_run(db, moved_task, status="running").id, old)
    before = {t.id: _state(db, t) for t in (failed_task, young_task, superseded_task, moved_task)}
    assert jobs.stale_runs() == {"given_up": 1}
    assert _state(db, queued_task)[:3] == ("draft", [(queued.id, "failed", GIVEN_UP)],
                                           [("scoping", "draft", queued.id, GIVEN_UP, None)])
    assert {t.id: _state(db, t) for t in (failed_task, young_task, superseded_task, moved_task)} == before


def test_a_late_report_of_a_run_given_up_on_moves_nothing(api, db, exec_user):
    task = configured_agent_task(db)
    run_id = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    _age(db, run_id)
    assert jobs.stale_runs() == {"given_up": 1}
    moves = _state(db, task)[2]
    for status in ("success", "failed"):
        headers, body = runner_sandbox.callback_for(db, run_id, status=status, result=None)
        late = api.post(CALLBACK, json=body, headers=headers)
        assert late.status == 200 and late.json["stage"] == "draft", late
    assert _state(db, task)[0] == "draft" and _state(db, task)[2] == moves
    # dispatched again: the given-up run's late report is a stale run's
    newer = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    headers, body = runner_sandbox.callback_for(db, run_id, status="running", result=None)
    assert api.post(CALLBACK, json=body, headers=headers).json["stage"] == "scoping"
    assert _state(db, task)[1][-1][:2] == (newer, "running")


def test_batches_go_on_until_none_is_left_and_a_spent_budget_says_more(api, db, monkeypatch):
    tasks = [configured_agent_task(db, stage="building") for _ in range(5)]
    for task in tasks:
        _age(db, make_run(db, task, stage="building", status="running").id)
    assert jobs.stale_runs(batch=2) == {"given_up": 5}
    assert {_state(db, t)[0] for t in tasks} == {"pending_approval"}
    more = [configured_agent_task(db, stage="scoping") for _ in range(3)]
    for task in more:
        _age(db, make_run(db, task, status="running").id)
    assert jobs.stale_runs(batch=2, seconds=0) == {"given_up": 2, "more": True}
    assert jobs.stale_runs(batch=2) == {"given_up": 1}
    assert jobs.stale_runs(batch=2) == {"given_up": 0}
