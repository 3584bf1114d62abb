"""Session 25 (review 1): a breach goes to the first of the task's assignee, reporter and derived delivery manager
(tasks' `project_manager`) who may read the task and did not mark the late response or resolution themselves, as
the due-soon job falls back (docs/decisions/sla.md). Before, only an inactive assignee gave way to the manager: an
active assignee without `tasks:view` was chosen, failed the readers check, and the breach was marked noticed with
nobody told."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import iso_z, make_task, sla_policy
from tests.factories import config_item, grant, make_user


def _late_tasks(api, db, exec_user, count, **task_values):
    """`count` tasks of the same people (`task_values`), each given the policy three hours ago: both deadlines
    passed, still open."""
    policy = sla_policy(db)
    high = config_item(db, "task_priority", "high").id
    tasks = [make_task(db, priority_id=high, **task_values) for _ in range(count)]
    for task in tasks:
        answer = api.put(f"/api/sla/tasks/{task.id}", as_=exec_user,
                         json={"policy_id": policy.id, "created_at": iso_z(utcnow() - timedelta(hours=3))})
        assert answer.status == 200, answer
    return tasks


def _told(db, task):
    return db.scalars(select(Notification.user_id).where(Notification.type == "sla_breach",
                                                         Notification.resource_id == task.id)).all()


def _blocked(db):
    """An active employee whose tasks permission is none: they may not read any task."""
    user = make_user(db, access_level="employee")
    grant(db, user, "tasks", "none")
    return user


def test_an_assignee_without_tasks_view_gives_way_to_the_reporter(api, db, exec_user):
    from chalicelib.areas.sla.jobs import breach_scan

    assignee, reporter = _blocked(db), make_user(db, access_level="employee")
    manager = make_user(db, access_level="head")  # reads every task: told only when the reporter may not
    project = make_project(db, delivery_manager_id=manager.id)
    scanned, marked = _late_tasks(api, db, exec_user, 2, assignee_id=assignee.id, reporter_id=reporter.id,
                                  resource_type="project", resource_id=project.id)
    assert api.get(f"/api/tasks/{scanned.id}", as_=assignee).status in (403, 404)
    assert api.get(f"/api/tasks/{scanned.id}", as_=reporter).status == 200
    assert api.post(f"/api/sla/tasks/{marked.id}/respond", as_=exec_user).json == {"ok": True, "breached": True}
    assert _told(db, marked) == [reporter.id]
    assert breach_scan() == {"noticed": 1}
    assert _told(db, scanned) == [reporter.id]
    assert breach_scan() == {"noticed": 0}  # once per assignment
    assert (_told(db, scanned), _told(db, marked)) == ([reporter.id], [reporter.id])


def test_with_no_reporter_the_delivery_manager_is_told(api, db, exec_user):
    from chalicelib.areas.sla.jobs import breach_scan

    assignee = _blocked(db)
    manager = make_user(db, access_level="head")
    project = make_project(db, delivery_manager_id=manager.id)
    scanned, marked = _late_tasks(api, db, exec_user, 2, assignee_id=assignee.id,
                                  resource_type="project", resource_id=project.id)
    assert api.post(f"/api/sla/tasks/{marked.id}/resolve", as_=exec_user).json == {"ok": True, "breached": True}
    assert _told(db, marked) == [manager.id]
    assert breach_scan() == {"noticed": 1}
    assert _told(db, scanned) == [manager.id]


def test_a_reporter_who_may_not_read_the_task_gives_way_to_the_delivery_manager(api, db, exec_user):
    from chalicelib.areas.sla.jobs import breach_scan

    assignee, reporter = _blocked(db), _blocked(db)
    manager = make_user(db, access_level="head")
    project = make_project(db, delivery_manager_id=manager.id)
    scanned, marked = _late_tasks(api, db, exec_user, 2, assignee_id=assignee.id, reporter_id=reporter.id,
                                  resource_type="project", resource_id=project.id)
    assert api.post(f"/api/sla/tasks/{marked.id}/respond", as_=exec_user).json["breached"] is True
    assert breach_scan() == {"noticed": 1}
    assert (_told(db, scanned), _told(db, marked)) == ([manager.id], [manager.id])


def test_an_assignee_who_reads_the_task_is_told_alone(api, db, exec_user):
    from chalicelib.areas.sla.jobs import breach_scan

    assignee, reporter = make_user(db, access_level="employee"), make_user(db, access_level="employee")
    manager = make_user(db, access_level="head")
    project = make_project(db, delivery_manager_id=manager.id)
    scanned, marked = _late_tasks(api, db, exec_user, 2, assignee_id=assignee.id, reporter_id=reporter.id,
                                  resource_type="project", resource_id=project.id)
    assert api.post(f"/api/sla/tasks/{marked.id}/respond", as_=exec_user).json["breached"] is True
    assert breach_scan() == {"noticed": 1}
    assert (_told(db, scanned), _told(db, marked)) == ([assignee.id], [assignee.id])


def test_the_assignee_marking_their_own_late_response_gives_way_to_the_reporter(api, db, exec_user):
    """The actor is never told (they know of the breach they marked): the next reader in line is."""
    assignee = make_user(db, access_level="head")  # sla:update, sees every task
    reporter = make_user(db, access_level="employee")
    (task,) = _late_tasks(api, db, exec_user, 1, assignee_id=assignee.id, reporter_id=reporter.id)
    assert api.post(f"/api/sla/tasks/{task.id}/respond", as_=assignee).json == {"ok": True, "breached": True}
    assert _told(db, task) == [reporter.id]
    assert api.post(f"/api/sla/tasks/{task.id}/resolve", as_=exec_user).json["breached"] is True
    assert _told(db, task) == [reporter.id]  # once per assignment
