"""Session 27 (docs/decisions/agents.md, "runner reports out of order"): the runner's deliveries may arrive in any order.

1. a `queued` report arriving after `running` moved the run back to queued and set its finished_at (every status but
   `running` set it), and a status neither waiting nor ended (an interim one, `cancelled`, ...) took the run out of
   the agents-stale-runs job (which gives up queued and running runs only), so the task stayed in scoping or building
   for good. Now finished_at is set only by an ended status (success, failed), a report never moves a run back to
   queued, and any other status is a run still at work: `running` (the reported status kept in the history event),
   which the stale-runs job gives up when the runner goes quiet;
2. a late `running` report (100 tokens) after `success` (900) lowered the run's final tokens and cost: the runner
   reports its totals so far, so the run keeps the larger of the stored and the reported.
"""
from sqlalchemy import select

from chalicelib.areas.agents import jobs
from chalicelib.core.history import HistoryEntry
from tests.areas.agents.factories import configured_agent_task, move_agent_task, report_run
from tests.areas.agents.test_ended_runs_s27 import _agent, _reported_ago, _run


def _reported_statuses(db, task):
    db.expire_all()
    return [e.changes["status"] for e in db.scalars(
        select(HistoryEntry).where(HistoryEntry.entity_id == task.id, HistoryEntry.action == "agent_run_reported")
        .order_by(HistoryEntry.created_at, HistoryEntry.id))]


# 1. a report never moves a run backwards; an interim status is a run still at work ---------------------------------

def test_a_queued_report_arriving_after_running_does_not_move_the_run_back(api, db, exec_user):
    task = configured_agent_task(db)
    run_id = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    report_run(api, db, run_id, "running", tokens=10)
    late = report_run(api, db, run_id, "queued")
    assert late["run_status"] == "running"
    run = _run(db, run_id)
    assert (run.status, run.finished_at) == ("running", None), (run.status, run.finished_at)
    assert _agent(db, task).stage == "scoping"


def test_a_queued_report_of_a_queued_run_leaves_it_queued_and_unfinished(api, db, exec_user):
    task = configured_agent_task(db)
    run_id = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    _run(db, run_id).status = "queued"  # the runner's queued report arrives before send_run marked the run taken
    db.flush()
    assert report_run(api, db, run_id, "queued")["run_status"] == "queued"
    run = _run(db, run_id)
    assert (run.status, run.finished_at) == ("queued", None)


def test_an_interim_status_keeps_the_run_for_the_stale_job(api, db, exec_user):
    task = configured_agent_task(db)
    run_id = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    report_run(api, db, run_id, "running")
    interim = report_run(api, db, run_id, "cancelled")  # an interim/unknown status a runner may send
    assert (interim["run_status"], interim["stage"]) == ("running", "scoping")
    run = _run(db, run_id)
    assert (run.status, run.finished_at) == ("running", None)
    assert _reported_statuses(db, task) == ["running", "cancelled"]  # what the runner said is kept in the history
    _reported_ago(db, run_id, jobs.STALE_RUN_MINUTES + 1)
    given = jobs.stale_runs()
    agent = _agent(db, task)
    assert agent.stage != "scoping", (given, agent.stage, _run(db, run_id).status)
    assert (given, agent.stage, _run(db, run_id).status) == ({"given_up": 1}, "draft", "failed")


def test_an_interim_status_does_not_take_a_rebuild_out_of_the_stale_job_either(api, db, exec_user):
    task = configured_agent_task(db, stage="pending_approval")
    run_id = move_agent_task(api, task, "approve", exec_user)["run"]["id"]
    report_run(api, db, run_id, "building_preview", tokens=40)
    _reported_ago(db, run_id, jobs.STALE_RUN_MINUTES + 1)
    assert jobs.stale_runs() == {"given_up": 1}
    assert (_agent(db, task).stage, _run(db, run_id).status) == ("pending_approval", "failed")


def test_an_ended_status_still_finishes_the_run(api, db, exec_user):
    task = configured_agent_task(db)
    run_id = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    report_run(api, db, run_id, "waiting_for_ci")
    assert _run(db, run_id).finished_at is None
    assert report_run(api, db, run_id, "success", scope_document="# S")["stage"] == "pending_approval"
    run = _run(db, run_id)
    assert run.status == "success" and run.finished_at is not None


# 2. the runner's totals are never lowered by a late delivery -----------------------------------------------------

def test_a_late_running_report_after_success_does_not_lower_the_final_spend(api, db, exec_user):
    task = configured_agent_task(db)
    run_id = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    # the runner sent running (100 tokens) then success (900 tokens); the running delivery arrives last
    assert report_run(api, db, run_id, "success", scope_document="# S", tokens=900,
                      cost=1.5)["stage"] == "pending_approval"
    report_run(api, db, run_id, "running", tokens=100, cost=0.2)
    run = _run(db, run_id)
    assert (run.tokens, float(run.cost)) == (900, 1.5), (run.tokens, run.cost)


def test_a_late_report_of_an_ended_run_still_raises_its_spend(api, db, exec_user):
    task = configured_agent_task(db)
    run_id = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    report_run(api, db, run_id, "failed", error="crash", tokens=300, cost=0.5)
    report_run(api, db, run_id, "running", tokens=800, cost=0.25)  # more tokens, a lower cost: each the larger
    run = _run(db, run_id)
    assert (run.status, run.tokens, float(run.cost)) == ("failed", 800, 0.5)


def test_an_open_run_keeps_its_larger_totals_too(api, db, exec_user):
    task = configured_agent_task(db)
    run_id = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    report_run(api, db, run_id, "running", tokens=500, cost=1)
    report_run(api, db, run_id, "queued", tokens=0, cost=0)  # the first delivery, arriving last
    run = _run(db, run_id)
    assert (run.status, run.tokens, float(run.cost)) == ("running", 500, 1.0)
    report_run(api, db, run_id, "success", scope_document="# S", tokens=700, cost=1.25)
    run = _run(db, run_id)
    assert (run.status, run.tokens, float(run.cost)) == ("success", 700, 1.25)
