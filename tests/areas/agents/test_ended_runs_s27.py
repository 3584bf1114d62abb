"""Session 27 (docs/decisions/agents.md), three defects of the agent pipeline left from session 26:

1. a late report of a run that has ended (failed by the runner, by an unreachable runner or given up by the
   agents-stale-runs job; or succeeded) reopened it: its status was overwritten and, while it was still the task's
   latest run of its stage, its results (the review gates, the scope document) were written onto the task. Now an
   ended run keeps its status, error and finish time, nothing of the report is written onto the task, and the answer
   is the usual 200 with the run's kept status (`run_status`) and the task's stage;
2. the stale-runs job measured from the run's creation, so a run working for more than 4 hours was given up while
   the runner still reported `running`: the clock now runs from the run's last report (`last_report_at`, the
   heartbeat; a repeated `running` report moves it too);
3. a failed run sent both `agent_task_stage_changed` (the move back) and `agent_run_failed` to the same people: now
   only `agent_run_failed`, which names the stage the task is back in, to the audience of both.
"""
from datetime import timedelta

from sqlalchemy import select, update

from chalicelib.areas.agents import jobs
from chalicelib.areas.agents.models import AgentRun, AgentTask
from chalicelib.core.history import HistoryEntry
from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.areas.agents.factories import configured_agent_task, move_agent_task, report_run
from tests.factories import grant, make_user

GIVEN_UP = f"the runner did not report in {jobs.STALE_RUN_MINUTES} minutes"


def _created_ago(db, run_id, minutes):
    db.execute(update(AgentRun).where(AgentRun.id == run_id).values(created_at=utcnow() - timedelta(minutes=minutes)))
    db.flush()


def _reported_ago(db, run_id, minutes):
    db.execute(update(AgentRun).where(AgentRun.id == run_id)
               .values(last_report_at=utcnow() - timedelta(minutes=minutes)))
    db.flush()


def _run(db, run_id):
    db.expire_all()
    return db.get(AgentRun, run_id)


def _agent(db, task):
    db.expire_all()
    return db.scalar(select(AgentTask).where(AgentTask.task_id == task.id))


def _moves(db, task):
    db.expire_all()
    return [(e.changes["stage"]["from"], e.changes["stage"]["to"]) for e in db.scalars(
        select(HistoryEntry).where(HistoryEntry.entity_id == task.id, HistoryEntry.action == "agent_stage_changed")
        .order_by(HistoryEntry.created_at, HistoryEntry.id))]


def _notices(db, task):
    db.expire_all()
    return sorted((n.user_id, n.type, n.body) for n in db.scalars(
        select(Notification).where(Notification.resource_id == task.id)))


def _forget(db, task):
    """The notices so far dropped, so the core's 5-minute de-duplication hides nothing."""
    db.execute(Notification.__table__.delete().where(Notification.resource_id == task.id))
    db.flush()


# 1. an ended run is not reopened --------------------------------------------------------------------------------------

def test_a_late_passed_report_of_a_rebuild_given_up_on_writes_no_gates(api, db, exec_user):
    task = configured_agent_task(db, stage="review")
    run_id = move_agent_task(api, task, "review-reject", exec_user, reason="the footer")["run"]["id"]
    _created_ago(db, run_id, jobs.STALE_RUN_MINUTES + 1)
    _reported_ago(db, run_id, jobs.STALE_RUN_MINUTES + 1)
    assert jobs.stale_runs() == {"given_up": 1}
    assert _agent(db, task).stage == "review"
    late = report_run(api, db, run_id, "success", ci_status="passed", browser_test_status="passed",
                   pr_url="https://git.example.com/pr/7", tokens=900, cost=1.5)
    assert (late["stage"], late["run_status"], late["duplicate"]) == ("review", "failed", 0)
    run, agent = _run(db, run_id), _agent(db, task)
    assert (run.status, run.error) == ("failed", GIVEN_UP)  # not reopened
    assert (run.tokens, float(run.cost)) == (900, 1.5)  # what the runner spent is still counted
    assert (agent.ci_status, agent.browser_test_status, agent.pr_url) == (None, None, None)
    # the gates of the build given up on do not let the task to done
    gated = api.post(f"/api/agent-tasks/{task.id}/review-approve", json={"force": False}, as_=exec_user)
    assert gated.status == 409, gated
    # the same late report delivered again: the usual duplicate
    assert report_run(api, db, run_id, "success", ci_status="passed")["duplicate"] == 1


def test_a_late_report_of_a_run_the_runner_failed_does_not_reopen_it(api, db, exec_user):
    task = configured_agent_task(db)
    run_id = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    assert report_run(api, db, run_id, "failed", error="the model gave up")["stage"] == "draft"
    moves = _moves(db, task)
    for status in ("running", "success"):
        late = report_run(api, db, run_id, status, scope_document="# Late scope", effort_estimate="XL")
        assert (late["stage"], late["run_status"]) == ("draft", "failed"), late
    run, agent = _run(db, run_id), _agent(db, task)
    assert (run.status, run.error) == ("failed", "the model gave up")
    assert (agent.scope_document, agent.effort_estimate) == (None, None)
    assert _moves(db, task) == moves
    # a run that succeeded is ended too: a later failed report changes neither the run nor the task
    again = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    assert report_run(api, db, again, "success", scope_document="# Scope")["stage"] == "pending_approval"
    late = report_run(api, db, again, "failed", error="late crash")
    assert (late["stage"], late["run_status"]) == ("pending_approval", "success")
    assert (_run(db, again).status, _run(db, again).error) == ("success", None)


# 2. the stale clock runs from the last report -------------------------------------------------------------------------

def test_a_long_run_that_keeps_reporting_running_is_not_given_up(api, db, exec_user):
    task = configured_agent_task(db, stage="pending_approval")
    run_id = move_agent_task(api, task, "approve", exec_user)["run"]["id"]
    _created_ago(db, run_id, jobs.STALE_RUN_MINUTES + 60)  # started five hours ago
    report_run(api, db, run_id, "running", tokens=10)  # and still working
    assert jobs.stale_runs() == {"given_up": 0}
    assert (_agent(db, task).stage, _run(db, run_id).status) == ("building", "running")
    # its next `running` report (the same (run, stage, status): a duplicate) is a heartbeat too
    _reported_ago(db, run_id, jobs.STALE_RUN_MINUTES + 1)
    assert report_run(api, db, run_id, "running")["duplicate"] == 1
    assert jobs.stale_runs() == {"given_up": 0}
    # silent for longer than STALE_RUN_MINUTES since its last report: given up
    _reported_ago(db, run_id, jobs.STALE_RUN_MINUTES + 1)
    assert jobs.stale_runs() == {"given_up": 1}
    assert (_agent(db, task).stage, _run(db, run_id).status) == ("pending_approval", "failed")


# 3. one notice of a failed run ----------------------------------------------------------------------------------------

def test_a_failed_run_sends_one_notice_naming_the_stage_it_went_back_to(api, db, exec_user):
    assignee, reporter = make_user(db), make_user(db)
    task = configured_agent_task(db, stage="pending_approval", assignee_id=assignee.id, reporter_id=reporter.id)
    run_id = move_agent_task(api, task, "approve", exec_user)["run"]["id"]
    _forget(db, task)
    report_run(api, db, run_id, "failed", error="tests failed")
    body = "The building run of Rebuild the checkout failed; the task is back in pending approval."
    assert _notices(db, task) == sorted([(assignee.id, "agent_run_failed", body),
                                         (reporter.id, "agent_run_failed", body)])
    assert _moves(db, task)[-1] == ("building", "pending_approval")  # the move back is still in the history


def test_a_run_given_up_on_tells_the_deciding_dispatcher_once_when_the_people_may_only_view(api, db, exec_user):
    assignee = make_user(db, access_level="manager")
    grant(db, assignee, "tasks", "view")
    task = configured_agent_task(db, assignee_id=assignee.id)
    run_id = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    _forget(db, task)
    _created_ago(db, run_id, jobs.STALE_RUN_MINUTES + 1)
    _reported_ago(db, run_id, jobs.STALE_RUN_MINUTES + 1)
    assert jobs.stale_runs() == {"given_up": 1}
    body = "The scoping run of Rebuild the checkout failed; the task is back in draft."
    # the move back's stage notice told the dispatcher (who may dispatch again) when the people may only view: the
    # failed run's one notice keeps that audience
    assert _notices(db, task) == sorted([(assignee.id, "agent_run_failed", body),
                                         (exec_user.id, "agent_run_failed", body)])
