"""Session 25: a breach of a task with no assignee tells the project's delivery manager (docs/decisions/sla.md). A
client's portal request is such a task (no assignee; its delivery manager watches it): before, its breach was
recorded as noticed and nobody told, so an untriaged request breached unseen. The manager is told only when active
and a reader of the task (tasks' readers), never when they marked the late response themselves; a client's request in
no project tells its company's half of the chain (session 26: the client profile's delivery manager, then the
company's owner); another projectless task, or a project without a delivery manager, tells nobody, as before; once
per assignment, by the scan or on a late respond/resolve; the scan's statements stay as many at 3 breaches as at 20."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from chalicelib.areas.sla.models import TaskSla
from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.areas.portal.conftest import TOKEN, Portal, make_client
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import iso_z, make_task, sla_policy
from tests.factories import config_item, make_user


@pytest.fixture
def portal(api, set_env):
    set_env(PORTAL_SERVICE_TOKEN=TOKEN, WMS_CHECK_RESPONSES="1")
    return Portal(api)


def _late_request(portal, api, db, exec_user, *, manager=None):
    """A client's request (portal POST /requests, priority high) in a support project whose delivery manager is
    `manager`, its SLA restarted three hours ago: both deadlines passed, still open, no assignee."""
    policy = sla_policy(db)
    company = make_client(db)
    project = make_project(db, company_id=company.id, sla_policy_id=policy.id,
                           delivery_manager_id=manager.id if manager else None)
    answer = portal.post("/requests", company, role="collaborator",
                         json={"title": "Checkout broken", "projectId": project.id, "priority": "high"})
    assert answer.status == 201, answer
    task_id = answer.json["taskId"]
    assert db.scalar(select(TaskSla.id).where(TaskSla.task_id == task_id)) is not None  # the project's SLA
    moved = api.put(f"/api/sla/tasks/{task_id}", as_=exec_user,
                    json={"policy_id": policy.id, "created_at": iso_z(utcnow() - timedelta(hours=3))})
    assert moved.status == 200, moved
    return task_id


def _breach_notices(db, task_id):
    return db.execute(select(Notification.user_id, Notification.action_url)
                      .where(Notification.type == "sla_breach", Notification.resource_id == task_id)).all()


def test_the_scan_tells_the_delivery_manager_of_a_client_request_s_breach(portal, api, db, exec_user):
    from chalicelib.areas.sla.jobs import breach_scan

    manager = make_user(db, access_level="lead")
    task_id = _late_request(portal, api, db, exec_user, manager=manager)
    assert breach_scan() == {"noticed": 1}
    assert _breach_notices(db, task_id) == [(manager.id, f"/tasks/{task_id}")]
    assert breach_scan() == {"noticed": 0}  # once per assignment
    assert len(_breach_notices(db, task_id)) == 1


def test_the_scan_tells_nobody_of_a_client_request_s_breach_without_a_delivery_manager(portal, api, db, exec_user):
    from chalicelib.areas.sla.jobs import breach_scan

    task_id = _late_request(portal, api, db, exec_user)
    assert breach_scan() == {"noticed": 1}
    assert breach_scan() == {"noticed": 0}
    assert _breach_notices(db, task_id) == []
    assert db.scalar(select(TaskSla.breach_notified_at).where(TaskSla.task_id == task_id)) is not None


def test_a_late_response_to_a_client_request_tells_its_delivery_manager(portal, api, db, exec_user):
    manager = make_user(db, access_level="lead")
    task_id = _late_request(portal, api, db, exec_user, manager=manager)
    path = f"/api/sla/tasks/{task_id}"
    assert api.post(f"{path}/respond", as_=exec_user).json == {"ok": True, "breached": True}
    assert _breach_notices(db, task_id) == [(manager.id, f"/tasks/{task_id}")]
    assert api.post(f"{path}/resolve", as_=exec_user).json == {"ok": True, "breached": True}
    assert len(_breach_notices(db, task_id)) == 1  # once per assignment
    from chalicelib.areas.sla.jobs import breach_scan

    assert breach_scan() == {"noticed": 0}


def test_the_delivery_manager_marking_the_late_response_is_not_told(portal, api, db, exec_user):
    manager = make_user(db, access_level="head")  # sla:update, sees every task
    task_id = _late_request(portal, api, db, exec_user, manager=manager)
    assert api.post(f"/api/sla/tasks/{task_id}/respond", as_=manager).json == {"ok": True, "breached": True}
    assert _breach_notices(db, task_id) == []
    assert db.scalar(select(TaskSla.breach_notified_at).where(TaskSla.task_id == task_id)) is not None


def test_a_delivery_manager_who_may_not_read_the_task_or_is_inactive_is_not_told(api, db, exec_user):
    """A staff task of the project with no assignee, which its delivery manager (a lead, not watching it) does not
    see; and one of a project whose delivery manager is deactivated: noticed, nobody told, by the scan as on a late
    respond."""
    from chalicelib.areas.sla.jobs import breach_scan

    policy = sla_policy(db)
    high = config_item(db, "task_priority", "high").id
    unseen = make_project(db, delivery_manager_id=make_user(db, access_level="lead").id)
    gone = make_project(db, delivery_manager_id=make_user(db, access_level="executive", is_active=False).id)
    tasks = [make_task(db, priority_id=high, resource_type="project", resource_id=project.id)
             for project in (unseen, gone, unseen, gone)]
    for task in tasks:
        api.put(f"/api/sla/tasks/{task.id}", as_=exec_user,
                json={"policy_id": policy.id, "created_at": iso_z(utcnow() - timedelta(hours=3))})
    for task in tasks[2:]:
        assert api.post(f"/api/sla/tasks/{task.id}/respond", as_=exec_user).json["breached"] is True
    assert breach_scan() == {"noticed": 2}
    assert db.scalar(select(func.count(Notification.id)).where(Notification.type == "sla_breach")) == 0


def test_a_projectless_unassigned_task_tells_nobody_on_a_late_respond(api, db, exec_user):
    policy = sla_policy(db)
    task = make_task(db, priority_id=config_item(db, "task_priority", "high").id)
    path = f"/api/sla/tasks/{task.id}"
    api.put(path, as_=exec_user, json={"policy_id": policy.id, "created_at": iso_z(utcnow() - timedelta(hours=3))})
    assert api.post(f"{path}/respond", as_=exec_user).json == {"ok": True, "breached": True}
    assert db.scalar(select(func.count(Notification.id)).where(Notification.type == "sla_breach")) == 0


def test_the_scan_reads_the_delivery_managers_in_as_many_statements_at_3_as_at_20(db, driver_statements, aws):
    """As tests/areas/sla/test_breach_scan_counts.py, with every other task unassigned in a project whose delivery
    manager (an executive: reads every task) is told instead."""
    from chalicelib.areas.sla.jobs import breach_scan

    policy = sla_policy(db)
    high = config_item(db, "task_priority", "high").id
    past = utcnow() - timedelta(hours=3)
    counts = []
    for size in (3, 20):
        expected = {}
        for index in range(size):
            if index % 2 == 0:
                assignee = make_user(db)
                task = make_task(db, priority_id=high, assignee_id=assignee.id)
                expected[task.id] = assignee.id
            else:
                manager = make_user(db, access_level="executive")
                project = make_project(db, delivery_manager_id=manager.id)
                task = make_task(db, priority_id=high, resource_type="project", resource_id=project.id)
                expected[task.id] = manager.id
            db.add(TaskSla(task_id=task.id, policy_id=policy.id, priority_id=high, created_at=past,
                           response_deadline=past + timedelta(hours=1), resolution_deadline=past + timedelta(hours=2)))
        db.flush()
        statements, answer = driver_statements(breach_scan)
        assert answer == {"noticed": size}
        counts.append(len(statements))
        told = db.execute(select(Notification.resource_id, Notification.user_id)
                          .where(Notification.type == "sla_breach", Notification.resource_id.in_(expected))).all()
        assert sorted(told) == sorted(expected.items())
        assert breach_scan() == {"noticed": 0}
    assert counts[0] == counts[1], counts


def test_a_breach_of_a_deactivated_assignees_task_tells_the_delivery_manager(api, db, exec_user):
    """A task still assigned to someone who has left (users audit, session 25): its breach went to them (notify skips
    a deactivated user) and was recorded as noticed, so nobody was ever told. The project's delivery manager is
    told instead, by the scan as on a late respond; an active assignee is still told alone."""
    from chalicelib.areas.sla.jobs import breach_scan

    policy = sla_policy(db)
    high = config_item(db, "task_priority", "high").id
    manager = make_user(db, access_level="executive")
    gone = make_user(db, access_level="employee", is_active=False)
    here = make_user(db, access_level="employee")
    project = make_project(db, delivery_manager_id=manager.id)
    scanned, responded, kept = (make_task(db, priority_id=high, resource_type="project", resource_id=project.id,
                                          assignee_id=assignee.id) for assignee in (gone, gone, here))
    for task in (scanned, responded, kept):
        api.put(f"/api/sla/tasks/{task.id}", as_=exec_user,
                json={"policy_id": policy.id, "created_at": iso_z(utcnow() - timedelta(hours=3))})
    assert api.post(f"/api/sla/tasks/{responded.id}/respond", as_=exec_user).json["breached"] is True
    assert _breach_notices(db, responded.id) == [(manager.id, f"/tasks/{responded.id}")]
    assert breach_scan() == {"noticed": 2}
    assert _breach_notices(db, scanned.id) == [(manager.id, f"/tasks/{scanned.id}")]
    assert _breach_notices(db, kept.id) == [(here.id, f"/tasks/{kept.id}")]


def test_a_breach_of_a_request_whose_project_manager_left_tells_the_profiles(portal, api, db, exec_user):
    """Events-reaching-nobody audit (session 25): the portal gives a request whose project manager left to the client
    profile's manager (its watcher, told of it), but the breach went to the project's inactive manager and was
    marked noticed. The breach now goes to the manager the request derives: the first active of the two."""
    from chalicelib.areas.sla.jobs import breach_scan

    policy = sla_policy(db)
    profile_manager = make_user(db, access_level="lead")
    former = make_user(db, access_level="lead")
    company = make_client(db, manager=profile_manager)
    project = make_project(db, company_id=company.id, sla_policy_id=policy.id, delivery_manager_id=former.id)
    former.is_active = False
    db.flush()
    answer = portal.post("/requests", company, role="collaborator",
                         json={"title": "Checkout broken", "projectId": project.id, "priority": "high"})
    task_id = answer.json["taskId"]
    api.put(f"/api/sla/tasks/{task_id}", as_=exec_user,
            json={"policy_id": policy.id, "created_at": iso_z(utcnow() - timedelta(hours=3))})
    assert breach_scan() == {"noticed": 1}
    assert _breach_notices(db, task_id) == [(profile_manager.id, f"/tasks/{task_id}")]


def test_breach_of_a_request_in_no_project_tells_the_company_s_profile_manager(portal, api, db, exec_user):
    """Session 26 (daaaac2): a client's request in no project derives its company's half of the chain (the client
    profile's delivery manager, then the company's owner), in the breach fallback as at the request; before, only a
    request in a project derived a manager and this breach told nobody."""
    from chalicelib.areas.sla.jobs import breach_scan

    policy = sla_policy(db)
    manager = make_user(db, access_level="lead")
    company = make_client(db, manager=manager)
    answer = portal.post("/requests", company, role="collaborator", json={"title": "No project", "priority": "high"})
    assert answer.status == 201, answer
    task_id = answer.json["taskId"]
    moved = api.put(f"/api/sla/tasks/{task_id}", as_=exec_user,
                    json={"policy_id": policy.id, "created_at": iso_z(utcnow() - timedelta(hours=3))})
    assert moved.status == 200, moved
    assert breach_scan() == {"noticed": 1}
    assert _breach_notices(db, task_id) == [(manager.id, f"/tasks/{task_id}")]
