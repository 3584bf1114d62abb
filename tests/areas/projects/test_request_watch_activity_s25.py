"""Review of session 25 (returning audit): a client request's own watch follows the manager its project derives
when an admin deactivates or reactivates someone in the chain (projects' `user_activity_changed`). Before, the watch
stayed where it was, while the SLA breach and due-soon notices went to the derived manager, who could not read the
request: nobody was told."""
from datetime import timedelta

from sqlalchemy import select

from chalicelib.areas.tasks.models import TaskWatcher
from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.areas.portal.conftest import make_client, portal  # noqa: F401
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import iso_z, sla_policy
from tests.factories import make_user


def test_reactivated_project_manager_request_filed_while_away(portal, api, db, exec_user):  # noqa: F811
    from chalicelib.areas.sla.jobs import breach_scan

    policy = sla_policy(db)
    profile_manager, project_manager = (make_user(db, access_level="lead") for _ in range(2))
    company = make_client(db, manager=profile_manager)
    project = make_project(db, company_id=company.id, sla_policy_id=policy.id,
                           delivery_manager_id=project_manager.id)
    assert api.put(f"/api/admin/users/{project_manager.id}", as_=exec_user,
                   json={"is_active": False}).status == 200
    answer = portal.post("/requests", company, role="collaborator",
                         json={"title": "Checkout broken", "projectId": project.id, "priority": "high"})
    assert answer.status == 201, answer
    task_id = answer.json["taskId"]
    db.expire_all()
    assert db.scalars(select(TaskWatcher.user_id).where(TaskWatcher.task_id == task_id)).all() == [profile_manager.id]

    assert api.put(f"/api/admin/users/{project_manager.id}", as_=exec_user,
                   json={"is_active": True}).status == 200
    api.put(f"/api/sla/tasks/{task_id}", as_=exec_user,
            json={"policy_id": policy.id, "created_at": iso_z(utcnow() - timedelta(hours=3))})
    assert breach_scan() == {"noticed": 1}
    told = db.scalars(select(Notification.user_id).where(Notification.type == "sla_breach",
                                                         Notification.resource_id == task_id)).all()
    assert told == [project_manager.id]
    assert api.get(f"/api/tasks/{task_id}", as_=project_manager).status == 200
    assert api.get(f"/api/tasks/{task_id}", as_=profile_manager).status == 404  # the watch went back


def test_request_filed_before_project_manager_left_breach_reaches_nobody(portal, api, db, exec_user):  # noqa: F811
    """The leaving direction of the same gap: the watch stays with the leaver; the breach derives the profile's
    manager, who does not watch and may not read the request: nobody is told although an active manager exists."""
    from chalicelib.areas.sla.jobs import breach_scan

    policy = sla_policy(db)
    profile_manager, project_manager = (make_user(db, access_level="lead") for _ in range(2))
    company = make_client(db, manager=profile_manager)
    project = make_project(db, company_id=company.id, sla_policy_id=policy.id,
                           delivery_manager_id=project_manager.id)
    answer = portal.post("/requests", company, role="collaborator",
                         json={"title": "Checkout broken", "projectId": project.id, "priority": "high"})
    task_id = answer.json["taskId"]
    assert api.put(f"/api/admin/users/{project_manager.id}", as_=exec_user,
                   json={"is_active": False}).status == 200
    api.put(f"/api/sla/tasks/{task_id}", as_=exec_user,
            json={"policy_id": policy.id, "created_at": iso_z(utcnow() - timedelta(hours=3))})
    assert breach_scan() == {"noticed": 1}
    told = db.scalars(select(Notification.user_id).where(Notification.type == "sla_breach",
                                                         Notification.resource_id == task_id)).all()
    assert told == [profile_manager.id]
    assert api.get(f"/api/tasks/{task_id}", as_=profile_manager).status == 200


def test_a_project_moved_to_another_client_hands_its_requests_to_that_clients_manager(portal, api, db, exec_user):  # noqa: F811
    """Review of session 25: a project with no delivery manager of its own moved from client A to client B derives
    B's profile manager for its requests, but their watch stayed with A's: B's manager, told of a breach, could not
    read the request, and nobody was told. A change of the project's company (or owner) now moves the watch too."""
    from chalicelib.areas.sla.jobs import breach_scan

    policy = sla_policy(db)
    manager_a, manager_b = (make_user(db, access_level="lead") for _ in range(2))
    client_a, client_b = make_client(db, manager=manager_a), make_client(db, manager=manager_b)
    project = make_project(db, company_id=client_a.id, sla_policy_id=policy.id)
    answer = portal.post("/requests", client_a, role="collaborator",
                         json={"title": "Checkout broken", "projectId": project.id, "priority": "high"})
    assert answer.status == 201, answer
    task_id = answer.json["taskId"]
    moved = api.put(f"/api/projects/{project.id}", as_=exec_user, json={"company_id": client_b.id})
    assert moved.status == 200, moved.json
    api.put(f"/api/sla/tasks/{task_id}", as_=exec_user,
            json={"policy_id": policy.id, "created_at": iso_z(utcnow() - timedelta(hours=3))})
    assert breach_scan() == {"noticed": 1}
    db.expire_all()
    told = db.scalars(select(Notification.user_id).where(Notification.type == "sla_breach",
                                                         Notification.resource_id == task_id)).all()
    assert told == [manager_b.id]
    assert db.scalars(select(TaskWatcher.user_id).where(TaskWatcher.task_id == task_id)).all() == [manager_b.id]
    assert api.get(f"/api/tasks/{task_id}", as_=manager_b).status == 200
