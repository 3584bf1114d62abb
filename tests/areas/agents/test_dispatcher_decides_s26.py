"""Session 26: an agent task the runner moves to pending_approval or review waits for someone holding `tasks:update`
(approve, reject, review-approve, review-reject). When no assignee or reporter told of it holds `tasks:update`
(they may only view: they are still told, as readers), the user who dispatched the run is told too, when they may
read the task and hold `tasks:update` themselves; otherwise nobody extra. A failed run's notice stayed with the
readers while its move back told the deciding dispatcher; since session 27 the failed run sends that one notice
(`agent_run_failed`) to both audiences (docs/decisions/agents.md)."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from chalicelib.providers.runner import sandbox as runner_sandbox
from tests.areas.agents.factories import CALLBACK, configured_agent_task, dispatch_run, report_run
from tests.factories import grant, make_user

STAGE = "agent_task_stage_changed"


def _told(db, task, type_=STAGE) -> set[str]:
    db.expire_all()
    return set(db.scalars(select(Notification.user_id).where(Notification.resource_id == task.id,
                                                             Notification.type == type_)).all())


def _forget(db, task) -> None:
    """The notices so far (the dispatch's) dropped, so the core's 5-minute de-duplication hides nothing."""
    db.execute(Notification.__table__.delete().where(Notification.resource_id == task.id))
    db.flush()


def _viewers(db):
    assignee, reporter = make_user(db, access_level="manager"), make_user(db, access_level="manager")
    grant(db, assignee, "tasks", "view")
    grant(db, reporter, "tasks", "view")
    return assignee, reporter


def test_view_only_people_awaiting_approval_also_tell_the_dispatcher_who_decides(api, db, exec_user):
    assignee, reporter = _viewers(db)
    task = configured_agent_task(db, assignee_id=assignee.id, reporter_id=reporter.id, created_by=reporter.id)
    run_id = dispatch_run(api, task, exec_user)
    _forget(db, task)
    assert report_run(api, db, run_id, "success", scope_document="# Scope")["stage"] == "pending_approval"
    assert _told(db, task) == {assignee.id, reporter.id, exec_user.id}  # the readers kept, the decider added
    assert api.post(f"/api/agent-tasks/{task.id}/approve", as_=assignee).status == 403
    assert api.post(f"/api/agent-tasks/{task.id}/approve", as_=exec_user).status == 200


def test_view_only_people_in_review_also_tell_the_dispatcher_who_decides(api, db, exec_user):
    assignee, reporter = _viewers(db)
    task = configured_agent_task(db, assignee_id=assignee.id, reporter_id=reporter.id)
    report_run(api, db, dispatch_run(api, task, exec_user), "success", scope_document="# Scope")
    approved = api.post(f"/api/agent-tasks/{task.id}/approve", as_=exec_user)
    assert approved.status == 200, approved
    _forget(db, task)
    assert report_run(api, db, approved.json["run"]["id"], "success", ci_status="passed")["stage"] == "review"
    assert _told(db, task) == {assignee.id, reporter.id, exec_user.id}


def test_an_assignee_who_decides_is_told_and_the_dispatcher_is_not(api, db, exec_user):
    assignee = make_user(db, access_level="manager")
    grant(db, assignee, "tasks", "update")
    _viewer, reporter = _viewers(db)
    task = configured_agent_task(db, assignee_id=assignee.id, reporter_id=reporter.id)
    run_id = dispatch_run(api, task, exec_user)
    _forget(db, task)
    report_run(api, db, run_id, "success", scope_document="# Scope")
    assert _told(db, task) == {assignee.id, reporter.id}


def test_a_dispatcher_who_may_only_view_is_not_added(api, db):
    dispatcher = make_user(db, access_level="executive")
    assignee, reporter = _viewers(db)
    task = configured_agent_task(db, assignee_id=assignee.id, reporter_id=reporter.id)
    run_id = dispatch_run(api, task, dispatcher)
    grant(db, dispatcher, "tasks", "view")  # may still read the task, no longer decide
    _forget(db, task)
    report_run(api, db, run_id, "success", scope_document="# Scope")
    assert _told(db, task) == {assignee.id, reporter.id}


def test_a_failed_run_tells_the_view_only_readers_and_the_deciding_dispatcher(api, db, exec_user):
    assignee, reporter = _viewers(db)
    task = configured_agent_task(db, assignee_id=assignee.id, reporter_id=reporter.id)
    report_run(api, db, dispatch_run(api, task, exec_user), "failed", error="crashed")
    # session 27: the dispatcher, told of the move back by its stage notice before, now hears it in this one notice
    assert _told(db, task, "agent_run_failed") == {assignee.id, reporter.id, exec_user.id}


def test_the_decider_check_costs_one_statement_whatever_the_people(api, db, exec_user, count_queries):
    counts = []
    for people in ((), _viewers(db)):
        task = configured_agent_task(db, **dict(zip(("assignee_id", "reporter_id"), (p.id for p in people))))
        run_id = dispatch_run(api, task, exec_user)
        headers, body = runner_sandbox.callback_for(db, run_id, status="success", result={"scope_document": "# S"})
        with count_queries() as counter:
            assert api.post(CALLBACK, json=body, headers=headers).status == 200
        assert exec_user.id in _told(db, task)
        counts.append(counter.count)
    # no people (the dispatcher alone asked) or two view-only people: the same statements (who of the readers holds
    # tasks:update is one statement, whatever their number)
    assert counts[0] == counts[1], counts


def test_without_people_a_dispatcher_who_may_only_view_is_not_told(api, db):
    dispatcher = make_user(db, access_level="executive")
    task = configured_agent_task(db)
    run_id = dispatch_run(api, task, dispatcher)
    grant(db, dispatcher, "tasks", "view")
    report_run(api, db, run_id, "success", scope_document="# Scope")
    assert _told(db, task) == set()
