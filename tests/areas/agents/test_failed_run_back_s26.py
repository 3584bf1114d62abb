"""Session 26: a run the runner reports failed puts the task back in the stage that run's start left, as a runner
that cannot be reached does (docs/decisions/agents.md). Before, the task stayed in scoping or building, where no move
of the API starts (dispatch is from draft or rejected, approve and reject from pending_approval, the review moves
from review): every move answered 409 and the task was stuck for good. Only the task's latest run of the stage the
task is still in moves it; a stale run's failure moves nothing; the same report delivered twice moves once."""
from sqlalchemy import select

from chalicelib.core.history import HistoryEntry
from chalicelib.core.notify import Notification
from tests.areas.agents.factories import CALLBACK, configured_agent_task, deliver_report, move_agent_task, report_run
from tests.factories import make_user


def _stage(api, task, user) -> str:
    return api.get(f"/api/agent-tasks/{task.id}", as_=user).json["agent"]["stage"]


def _moves(db, task) -> list[tuple]:
    db.expire_all()
    entries = db.scalars(select(HistoryEntry).where(HistoryEntry.entity_id == task.id,
                                                    HistoryEntry.action == "agent_stage_changed")
                         .order_by(HistoryEntry.created_at, HistoryEntry.id)).all()
    return [(e.changes["stage"]["from"], e.changes["stage"]["to"], e.changes.get("run_id"), e.actor_id)
            for e in entries]


def test_a_failed_scoping_run_puts_the_task_back_in_draft_and_it_can_be_dispatched_again(api, db, exec_user):
    assignee = make_user(db)
    task = configured_agent_task(db, assignee_id=assignee.id)
    run_id = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    reported, headers, body = deliver_report(api, db, run_id, "failed", error="the model gave up")
    answer = reported.json
    assert (answer["stage"], answer["run_status"]) == ("draft", "failed")
    again = api.post(CALLBACK, json=body, headers=headers)  # the same report delivered again moves nothing more
    assert again.status == 200 and again.json["duplicate"] == 1 and again.json["stage"] == "draft", again
    assert _moves(db, task) == [("draft", "scoping", None, exec_user.id), ("scoping", "draft", run_id, None)]
    notices = db.scalars(select(Notification).where(Notification.resource_id == task.id,
                                                    Notification.type == "agent_run_failed")).all()
    assert [(n.user_id, n.body) for n in notices] == [
        (assignee.id, "The scoping run of Rebuild the checkout failed; the task is back in draft.")]
    redispatched = move_agent_task(api, task, "dispatch", exec_user)
    assert redispatched["run"]["id"] != run_id and _stage(api, task, exec_user) == "scoping"


def test_a_failed_scoping_run_of_a_rejected_task_puts_it_back_in_rejected(api, db, exec_user):
    task = configured_agent_task(db, stage="rejected")
    run_id = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    answer = report_run(api, db, run_id, "failed")
    assert answer["stage"] == "rejected"
    assert _moves(db, task)[-1] == ("scoping", "rejected", run_id, None)
    move_agent_task(api, task, "dispatch", exec_user)


def test_a_failed_build_after_approve_puts_the_task_back_in_pending_approval(api, db, exec_user):
    task = configured_agent_task(db, stage="pending_approval")
    run_id = move_agent_task(api, task, "approve", exec_user)["run"]["id"]
    answer = report_run(api, db, run_id, "failed", error="tests failed")
    assert answer["stage"] == "pending_approval"
    assert _moves(db, task)[-1] == ("building", "pending_approval", run_id, None)
    rebuilt = move_agent_task(api, task, "approve", exec_user)  # approve again starts a new build run
    assert rebuilt["run"]["id"] != run_id and rebuilt["run"]["stage"] == "building"


def test_a_failed_rebuild_after_review_reject_puts_the_task_back_in_review(api, db, exec_user):
    task = configured_agent_task(db, stage="review")
    run_id = move_agent_task(api, task, "review-reject", exec_user, reason="the button is misaligned")["run"]["id"]
    answer = report_run(api, db, run_id, "failed")
    assert answer["stage"] == "review"
    assert _moves(db, task)[-1] == ("building", "review", run_id, None)
    move_agent_task(api, task, "review-reject", exec_user, reason="try again")


def test_a_stale_failed_run_moves_nothing(api, db, exec_user):
    task = configured_agent_task(db)
    first = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    # the task moved on (the run's success): its later failure moves nothing
    report_run(api, db, first, "success", scope_document="# Scope")
    answer = report_run(api, db, first, "failed")
    assert answer["stage"] == "pending_approval"
    # a build that is no longer the task's latest (it went to review, a rebuild started) fails late: nothing moves
    build = move_agent_task(api, task, "approve", exec_user)["run"]["id"]
    report_run(api, db, build, "success")
    newer = move_agent_task(api, task, "review-reject", exec_user, reason="again")["run"]["id"]
    before = _moves(db, task)
    answer = report_run(api, db, build, "failed")
    assert answer["stage"] == "building" and _moves(db, task) == before
    answer = report_run(api, db, newer, "running")
    assert answer["stage"] == "building" and _moves(db, task) == before
