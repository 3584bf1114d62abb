"""Session 25: when the runner's report moves an agent task to pending_approval and neither its assignee nor its
reporter may read it (both left, or none set), the user who dispatched the run (the run's `created_by`) is told,
when active and a reader of the task; otherwise the task waited for approval and nobody knew
(docs/decisions/agents.md). The normal case is unchanged: the assignee and reporter who may read it, only them."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from chalicelib.providers.runner import sandbox as runner_sandbox
from tests.areas.agents.factories import make_agent_task, make_config
from tests.areas.projects.factories import make_project
from tests.factories import grant, make_user


def _told(db, task, user=None) -> list[Notification]:
    db.expire_all()
    query = select(Notification).where(Notification.resource_id == task.id,
                                       Notification.type == "agent_task_stage_changed")
    if user is not None:
        query = query.where(Notification.user_id == user.id)
    return db.scalars(query).all()


def _dispatch_and_report(api, db, task, dispatcher):
    dispatched = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=dispatcher)
    assert dispatched.status == 200, dispatched
    headers, body = runner_sandbox.callback_for(db, dispatched.json["run"]["id"], status="success",
                                                result={"scope_document": "# Scope"})
    reported = api.post("/api/webhooks/agent-callback", json=body, headers=headers)
    assert reported.status == 200 and reported.json["stage"] == "pending_approval", reported
    return headers, body


def test_leavers_task_awaiting_approval_tells_the_dispatcher_once(api, db, exec_user):
    gone_a, gone_r = make_user(db, is_active=False), make_user(db, is_active=False)
    project = make_project(db)
    make_config(db, project)
    task, _agent = make_agent_task(db, project=project, stage="draft", title="Rebuild the checkout",
                                   assignee_id=gone_a.id, reporter_id=gone_r.id, created_by=gone_r.id)
    headers, body = _dispatch_and_report(api, db, task, exec_user)
    again = api.post("/api/webhooks/agent-callback", json=body, headers=headers)  # a repeated delivery
    assert again.status == 200 and again.json["duplicate"] == 1, again
    notices = _told(db, task)
    assert [n.user_id for n in notices] == [exec_user.id]
    [notice] = notices
    assert notice.title == "Agent task moved to pending approval: Rebuild the checkout"
    assert (notice.action_url, notice.actor_id) == (f"/tasks/{task.id}", None)


def test_task_without_assignee_or_reporter_tells_the_dispatcher(api, db, exec_user):
    project = make_project(db)
    make_config(db, project)
    task, _agent = make_agent_task(db, project=project, stage="draft", created_by=exec_user.id)
    _dispatch_and_report(api, db, task, exec_user)
    assert [n.user_id for n in _told(db, task)] == [exec_user.id]


def test_an_active_assignee_is_told_and_the_dispatcher_is_not(api, db, exec_user):
    assignee, gone_r = make_user(db), make_user(db, is_active=False)
    project = make_project(db)
    make_config(db, project)
    task, _agent = make_agent_task(db, project=project, stage="draft", assignee_id=assignee.id,
                                   reporter_id=gone_r.id, created_by=exec_user.id)
    db.execute(Notification.__table__.delete().where(Notification.resource_id == task.id))
    _dispatch_and_report(api, db, task, exec_user)
    assert _told(db, task, exec_user) == []
    # the assignee heard of the dispatch (scoping) and, within the core's 5 minutes, nothing more: only them
    assert {n.user_id for n in _told(db, task)} == {assignee.id}


def test_a_dispatcher_who_may_no_longer_read_the_task_is_not_told(api, db):
    dispatcher = make_user(db, access_level="executive")
    gone_a = make_user(db, is_active=False)
    project = make_project(db)
    make_config(db, project)
    task, _agent = make_agent_task(db, project=project, stage="draft", assignee_id=gone_a.id)
    dispatched = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=dispatcher)
    assert dispatched.status == 200, dispatched
    grant(db, dispatcher, "tasks", "none")  # lost tasks:view after dispatching
    headers, body = runner_sandbox.callback_for(db, dispatched.json["run"]["id"], status="success",
                                                result={"scope_document": "# Scope"})
    reported = api.post("/api/webhooks/agent-callback", json=body, headers=headers)
    assert reported.status == 200 and reported.json["stage"] == "pending_approval", reported
    assert _told(db, task) == []
