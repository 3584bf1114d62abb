"""Session 25: `task_due_soon` of a task whose assignee is not told (deactivated, or without `tasks:view`) goes to
the first reader among the task's reporter and the manager the task derives (its project's delivery manager, and
so on down projects' chain; for a client's request in no project, session 26, its company's half: the client
profile's delivery manager, then the company's owner), once per due date; another projectless task has only its
reporter. Before, such a task was skipped silently every run and its deadline passed unseen.
docs/decisions/tasks.md, "Notifications"."""
import json
from datetime import timedelta

from sqlalchemy import select, update

from chalicelib.core.ids import utcnow
from chalicelib.core.models import User
from chalicelib.core.notify import Notification
from chalicelib.core.timeutil import org_today
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task, status
from tests.factories import deactivate, grant, make_user


def _told(db, task=None) -> list[tuple[str, str, str]]:
    """(user id, title, resource id) of the `task_due_soon` notices sent so far."""
    db.expire_all()
    stmt = select(Notification).where(Notification.type == "task_due_soon").order_by(Notification.created_at,
                                                                                      Notification.title)
    if task is not None:
        stmt = stmt.where(Notification.resource_id == task.id)
    return [(n.user_id, n.title, n.resource_id) for n in db.scalars(stmt)]


def _run(**kwargs):
    from chalicelib.areas.tasks.jobs import due_soon

    return due_soon(**kwargs)


def _age_notices(db, minutes=10):
    """Past core notify's 5-minute de-duplication, as an hour between two runs would be."""
    db.execute(update(Notification).values(created_at=utcnow() - timedelta(minutes=minutes)))
    db.flush()


def _leavers_task(db, *, reporter=True, manager_level="executive", **overrides):
    leaver = make_user(db)
    boss = make_user(db, access_level="lead", name="Rita Reporter") if reporter else None
    manager = make_user(db, access_level=manager_level, name="Dan Delivery")
    project = make_project(db, delivery_manager_id=manager.id)
    values = {"title": "Send the contract", "assignee_id": leaver.id, "reporter_id": boss.id if boss else None,
              "resource_type": "project", "resource_id": project.id, "due_date": org_today(),
              "status_id": status(db, "todo").id}
    values.update(overrides)
    task = make_task(db, **values)
    deactivate(db, leaver)
    return leaver, boss, manager, task


def test_a_leavers_task_tells_its_reporter_once_through_the_scheduled_handler(api, db, client):
    _, boss, _, task = _leavers_task(db)
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    assert client.lambda_.invoke("task_due_soon", event).payload == {"noticed": 1}
    assert _told(db) == [(boss.id, "Due today, its assignee cannot be told: Send the contract", task.id)]
    # an hour later: the reporter is not told again, the delivery manager not at all
    _age_notices(db)
    assert client.lambda_.invoke("task_due_soon", event).payload == {"noticed": 0}
    assert client.lambda_.invoke("task_due_soon", event).payload == {"noticed": 0}
    assert [user_id for user_id, _, _ in _told(db)] == [boss.id]
    # the reporter indeed reads the task and sees the notice
    assert api.get(f"/api/tasks/{task.id}", as_=boss).status == 200
    listed = api.get("/api/notifications", as_=boss).json["notifications"]
    assert [n["resource_id"] for n in listed if n["type"] == "task_due_soon"] == [task.id]


def test_a_leavers_task_without_a_reporter_tells_the_delivery_manager_through_the_cli(db, capsys):
    from chalicelib import cli

    _, _, manager, task = _leavers_task(db, reporter=False, due_date=org_today() + timedelta(days=1))
    capsys.readouterr()
    assert cli.main(["job", "task-due-soon"]) == 0
    assert json.loads(capsys.readouterr().out) == {"noticed": 1}
    assert cli.main(["job", "task-due-soon"]) == 0
    assert json.loads(capsys.readouterr().out) == {"noticed": 0}
    assert _told(db) == [(manager.id, "Due tomorrow, its assignee cannot be told: Send the contract", task.id)]


def test_a_reporter_who_may_not_read_it_gives_way_to_the_delivery_manager(db):
    """The first *reader* (core readers: active, `tasks:view`, the task in their scope) of reporter, then manager."""
    _, boss, manager, _ = _leavers_task(db)
    grant(db, boss, "tasks", "none")
    assert _run() == {"noticed": 1}
    assert [user_id for user_id, _, _ in _told(db)] == [manager.id]
    assert _run() == {"noticed": 0}


def test_nobody_who_may_read_it_is_told_nothing(db):
    """A reporter who left too and a delivery manager (a lead) whose scope does not hold the task: nobody is told
    (the notice could only lead to a 404), and the task is read again on later runs."""
    _, boss, _, _ = _leavers_task(db, manager_level="lead")
    deactivate(db, boss)
    assert _run() == {"noticed": 0}
    assert _told(db) == []
    # the reporter comes back while the task is still due: told then
    db.get(User, boss.id).is_active = True
    db.flush()
    assert _run() == {"noticed": 1}
    assert [user_id for user_id, _, _ in _told(db)] == [boss.id]


def test_an_active_assignee_is_told_alone(db):
    _, _, _, task = _leavers_task(db)
    db.get(User, task.assignee_id).is_active = True  # not a leaver after all
    db.flush()
    assert _run() == {"noticed": 1}
    assert _told(db) == [(task.assignee_id, "Due today: Send the contract", task.id)]
    assert _run() == {"noticed": 0}


def test_an_assignee_who_comes_back_is_told_and_the_reporter_not_again(db):
    leaver, boss, _, task = _leavers_task(db)
    assert _run() == {"noticed": 1}
    _age_notices(db)
    db.get(User, leaver.id).is_active = True
    db.flush()
    assert _run() == {"noticed": 1}
    assert [user_id for user_id, _, _ in _told(db)] == [boss.id, leaver.id]
    assert _run() == {"noticed": 0}
    # a new due date (still soon) with the assignee gone again: the reporter is told of the new date
    _age_notices(db)
    deactivate(db, leaver)
    db.get(type(task), task.id).due_date = org_today() + timedelta(days=1)
    db.flush()
    assert _run() == {"noticed": 1}
    assert [title for user_id, title, _ in _told(db) if user_id == boss.id] == [
        "Due today, its assignee cannot be told: Send the contract",
        "Due tomorrow, its assignee cannot be told: Send the contract"]
    assert _run() == {"noticed": 0}


def test_the_fallback_costs_the_same_for_3_and_40_tasks(db, count_queries, aws):
    """The due tasks (with reporter and delivery manager, in the same select), the assignees' permissions, the
    fallbacks' readers (their permissions, their scopes), the markers' UPDATE, core notify's claim, read and write;
    a second run reads the tasks and the assignees' permissions and tells nobody."""
    counts, again = [], []
    for size in (3, 40):
        tasks = [_leavers_task(db, title=f"L{n}", due_date=org_today() + timedelta(days=n % 2))
                 for n in range(size)]
        with count_queries() as counted:
            assert _run() == {"noticed": size}
        counts.append(counted.count)
        told = _told(db)
        assert {resource_id for _, _, resource_id in told} >= {task.id for *_, task in tasks}
        assert {user_id for user_id, _, resource_id in told if resource_id in {t.id for *_, t in tasks}} == {
            boss.id for _, boss, _, _ in tasks}
        with count_queries() as second:
            assert _run() == {"noticed": 0}
        again.append(second.count)
    expected = 8 if db.get_bind().dialect.name == "postgresql" else 10
    assert counts == [expected, expected], counts
    assert again == [2, 2], again


def test_a_leavers_request_in_no_project_tells_the_company_s_profile_manager(api, db, set_env):
    """Session 26 (daaaac2): a client's request in no project derives its company's half of the chain (the client
    profile's delivery manager, then the company's owner) in this fallback too; before, only a task in a project
    derived a manager, so a leaver's request in no project without a reporter told nobody."""
    from chalicelib.areas.tasks.models import Task
    from tests.areas.portal.conftest import TOKEN, Portal, make_client

    set_env(PORTAL_SERVICE_TOKEN=TOKEN, WMS_CHECK_RESPONSES="1")
    manager = make_user(db, access_level="lead", name="Paula Profile")
    company = make_client(db, manager=manager)
    answer = Portal(api).post("/requests", company, role="collaborator",
                              json={"title": "No project", "priority": "high"})
    assert answer.status == 201, answer
    task = db.get(Task, answer.json["taskId"])
    assert (task.resource_type, task.resource_id, task.reporter_id) == ("company", company.id, None)
    leaver = make_user(db)
    task.assignee_id, task.due_date = leaver.id, org_today()
    db.flush()
    deactivate(db, leaver)
    assert _run() == {"noticed": 1}
    assert _told(db) == [(manager.id, "Due today, its assignee cannot be told: No project", task.id)]
    assert _run() == {"noticed": 0}
