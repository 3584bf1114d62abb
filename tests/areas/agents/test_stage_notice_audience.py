"""Who hears of an agent task's stage move (`agent_task_stage_changed`): the task's assignee and reporter who may read
the task (the tasks area's `task_readers`: active, `tasks:view`, the task in their scope), never the one who moved it.
One whose `tasks` permission is `none` (an override or their access level's matrix cell) is told nothing, as the tasks
area's `task_status_changed`: the notice names the task and could only lead to a 404. docs/decisions/agents.md."""
from sqlalchemy import select

from chalicelib.core.models import AccessLevelPermission
from chalicelib.core.notify import Notification
from chalicelib.providers.runner import sandbox as runner_sandbox
from tests.areas.agents.factories import make_agent_task, make_config
from tests.areas.projects.factories import make_project
from tests.factories import grant, make_user


def _told(db, user) -> list[Notification]:
    db.expire_all()
    return db.scalars(select(Notification).where(Notification.user_id == user.id,
                                                 Notification.type == "agent_task_stage_changed")).all()


def test_an_assignee_without_tasks_view_is_told_nothing_of_a_move_the_reporter_is(api, db, exec_user):
    blocked, reporter = make_user(db), make_user(db)
    grant(db, blocked, "tasks", "none")
    task, _agent = make_agent_task(db, stage="pending_approval", title="Rebuild the secret checkout",
                                   assignee_id=blocked.id, reporter_id=reporter.id, created_by=exec_user.id)
    moved = api.post(f"/api/agent-tasks/{task.id}/reject", as_=exec_user, json={"reason": "not now"})
    assert moved.status == 200, moved
    assert api.get(f"/api/tasks/{task.id}", as_=blocked).status in (403, 404)  # indeed cannot read it
    assert _told(db, blocked) == []
    [notice] = _told(db, reporter)
    assert notice.title == "Agent task moved to rejected: Rebuild the secret checkout"
    assert (notice.resource_id, notice.action_url, notice.actor_id) == (task.id, f"/tasks/{task.id}", exec_user.id)


def test_a_reporter_whose_access_level_has_no_tasks_is_told_nothing_the_assignee_is(api, db, exec_user):
    db.merge(AccessLevelPermission(access_level="lead", tool="tasks", level="none"))
    reporter, assignee = make_user(db, access_level="lead"), make_user(db)
    task, _agent = make_agent_task(db, stage="review", assignee_id=assignee.id, reporter_id=reporter.id,
                                   created_by=exec_user.id)
    moved = api.post(f"/api/agent-tasks/{task.id}/review-approve", as_=exec_user, json={"force": True})
    assert moved.status == 200, moved
    assert _told(db, reporter) == []
    assert len(_told(db, assignee)) == 1


def test_a_move_the_runner_reports_tells_only_readers(api, db, exec_user):
    """A runner's report moves the task with no person as actor (scoping to pending_approval): the same rule."""
    blocked, reporter = make_user(db), make_user(db)
    grant(db, blocked, "tasks", "none")
    project = make_project(db)
    make_config(db, project)
    task, _agent = make_agent_task(db, project=project, stage="draft", assignee_id=blocked.id,
                                   reporter_id=reporter.id, created_by=exec_user.id)
    dispatched = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
    assert dispatched.status == 200, dispatched
    db.execute(Notification.__table__.delete().where(Notification.resource_id == task.id))  # the dispatch's notice
    headers, body = runner_sandbox.callback_for(db, dispatched.json["run"]["id"], status="success",
                                                result={"scope_document": "# Scope"})
    reported = api.post("/api/webhooks/agent-callback", json=body, headers=headers)
    assert reported.status == 200 and reported.json["stage"] == "pending_approval", reported
    assert _told(db, blocked) == []
    [notice] = _told(db, reporter)
    assert notice.actor_id is None and "pending approval" in notice.title
