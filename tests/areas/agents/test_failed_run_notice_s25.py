"""Session 25: a runner report of a failed run tells someone. The task is back in the stage the run's start left
(session 26; before, it stayed in scoping or building), so its assignee and reporter who may read it are told (`agent_run_failed`), else the user who dispatched the
run when a reader (the fallback of the report's pending_approval move). Once per failed run: a repeated delivery
tells nobody again. A stale run (given up on, dispatched again) or a task no longer in the run's stage tells nobody.
Also: the runner's success move building -> review tells the dispatcher when neither assignee nor reporter may read
the task, as pending_approval does (docs/decisions/agents.md)."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.agents.factories import CALLBACK, configured_agent_task, deliver_report, dispatch_run
from tests.factories import grant, make_user


def _told(db, task, type_="agent_run_failed") -> list[Notification]:
    db.expire_all()
    return db.scalars(select(Notification).where(Notification.resource_id == task.id, Notification.type == type_)
                      .order_by(Notification.user_id)).all()


def test_a_failed_scoping_run_tells_the_assignee_and_reporter_once(api, db, exec_user):
    assignee, reporter = make_user(db), make_user(db)
    task = configured_agent_task(db, assignee_id=assignee.id, reporter_id=reporter.id, created_by=exec_user.id)
    run_id = dispatch_run(api, task, exec_user)
    reported, headers, body = deliver_report(api, db, run_id, "failed", error="build crashed")
    assert (reported.json["stage"], reported.json["run_status"]) == ("draft", "failed")  # back (session 26)
    again = api.post(CALLBACK, json=body, headers=headers)  # the same report delivered again
    assert again.status == 200 and again.json["duplicate"] == 1, again
    notices = _told(db, task)
    assert sorted(n.user_id for n in notices) == sorted([assignee.id, reporter.id])  # the dispatcher is not told
    notice = notices[0]
    assert notice.title == "Agent run failed: Rebuild the checkout"
    assert "scoping" in notice.body
    assert (notice.resource_type, notice.action_url, notice.actor_id) == ("task", f"/tasks/{task.id}", None)


def test_a_failed_build_of_a_task_whose_people_left_tells_the_dispatcher(api, db, exec_user):
    gone_a, gone_r = make_user(db, is_active=False), make_user(db, is_active=False)
    task = configured_agent_task(db, assignee_id=gone_a.id, reporter_id=gone_r.id, created_by=gone_r.id)
    scoping = dispatch_run(api, task, exec_user)
    deliver_report(api, db, scoping, "success", scope_document="# Scope")
    approved = api.post(f"/api/agent-tasks/{task.id}/approve", as_=exec_user)
    assert approved.status == 200, approved
    reported, _h, _b = deliver_report(api, db, approved.json["run"]["id"], "failed", error="tests failed")
    assert reported.json["stage"] == "pending_approval"  # back where the approve left (session 26)
    assert [n.user_id for n in _told(db, task)] == [exec_user.id]


def test_a_failed_run_of_a_task_without_people_tells_the_dispatcher(api, db, exec_user):
    task = configured_agent_task(db, created_by=exec_user.id)
    deliver_report(api, db, dispatch_run(api, task, exec_user), "failed")
    assert [n.user_id for n in _told(db, task)] == [exec_user.id]


def test_a_dispatcher_who_may_no_longer_read_the_task_is_not_told_of_the_failure(api, db):
    dispatcher = make_user(db, access_level="executive")
    task = configured_agent_task(db, assignee_id=make_user(db, is_active=False).id)
    run_id = dispatch_run(api, task, dispatcher)
    grant(db, dispatcher, "tasks", "none")
    deliver_report(api, db, run_id, "failed")
    assert _told(db, task) == []


def test_a_running_report_or_a_stale_failed_run_tells_nobody(api, db, exec_user):
    assignee = make_user(db)
    task = configured_agent_task(db, assignee_id=assignee.id)
    first = dispatch_run(api, task, exec_user)
    deliver_report(api, db, first, "running")
    assert _told(db, task) == []
    # the task moved on (the success of the run): a failed report of the same run afterwards leaves nothing unseen
    deliver_report(api, db, first, "success", scope_document="# Scope")
    reported, _h, _b = deliver_report(api, db, first, "failed")
    assert reported.json["stage"] == "pending_approval"
    assert _told(db, task) == []


def test_a_build_moved_to_review_of_a_task_whose_people_left_tells_the_dispatcher(api, db, exec_user):
    gone_a = make_user(db, is_active=False)
    task = configured_agent_task(db, assignee_id=gone_a.id, created_by=gone_a.id)
    scoping = dispatch_run(api, task, exec_user)
    deliver_report(api, db, scoping, "success", scope_document="# Scope")
    approved = api.post(f"/api/agent-tasks/{task.id}/approve", as_=exec_user)
    assert approved.status == 200, approved
    db.execute(Notification.__table__.delete().where(Notification.resource_id == task.id))  # the moves before
    db.flush()
    reported, _h, _b = deliver_report(api, db, approved.json["run"]["id"], "success", ci_status="passed")
    assert reported.json["stage"] == "review"
    notices = _told(db, task, "agent_task_stage_changed")
    assert [(n.user_id, n.title) for n in notices] == [(exec_user.id, "Agent task moved to review: Rebuild the checkout")]
