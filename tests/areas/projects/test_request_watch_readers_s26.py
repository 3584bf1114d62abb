"""Session 26 (audit "work waiting on someone who cannot act"): the manager a client's request derives was the first
ACTIVE one of the chain (the project's delivery manager, the client profile's, the project's owner, the company's
owner), even one who may not read tasks: they watched a request they could not open (403), and the next in the
chain, who could, was neither watching nor told. The chain now passes over one without tasks:view, and an admin
write that changes what a user may read (their tasks override, their access level, their level's tasks cell) moves
the watches as a (de)activation does."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import watcher_ids
from tests.factories import grant, make_user


def _told(db, user):
    return db.scalars(select(Notification.type).where(Notification.user_id == user.id)).all()


def test_a_project_manager_who_may_not_read_tasks_is_passed_over(portal, api, db):  # noqa: F811
    blind, profile_manager = make_user(db, access_level="lead"), make_user(db, access_level="lead")
    grant(db, blind, "tasks", "none")
    mine = make_client(db, manager=profile_manager)
    project = make_project(db, company_id=mine.id, delivery_manager_id=blind.id)
    answer = portal.post("/requests", mine, role="collaborator", json={"title": "Checkout", "projectId": project.id})
    assert answer.status == 201, answer
    task_id = answer.json["taskId"]
    assert watcher_ids(db, task_id) == [profile_manager.id]
    assert "portal_request" in _told(db, profile_manager) and "portal_request" not in _told(db, blind)
    assert api.get(f"/api/tasks/{task_id}", as_=profile_manager).status == 200


def test_a_request_in_no_project_passes_over_a_profile_manager_who_may_not_read_tasks(portal, api, db):  # noqa: F811
    blind, owner = make_user(db, access_level="lead"), make_user(db, access_level="lead")
    grant(db, blind, "tasks", "none")
    mine = make_client(db, manager=blind, owner_id=owner.id)
    answer = portal.post("/requests", mine, role="collaborator", json={"title": "Checkout"})
    assert answer.status == 201, answer
    assert watcher_ids(db, answer.json["taskId"]) == [owner.id]
    assert "portal_request" not in _told(db, blind)


def test_an_override_moves_the_watch_both_ways(portal, api, db, exec_user):  # noqa: F811
    manager, profile_manager = make_user(db, access_level="lead"), make_user(db, access_level="lead")
    mine = make_client(db, manager=profile_manager)
    project = make_project(db, company_id=mine.id, delivery_manager_id=manager.id)
    task_id = portal.post("/requests", mine, role="collaborator",
                          json={"title": "Checkout", "projectId": project.id}).json["taskId"]
    assert watcher_ids(db, task_id) == [manager.id]
    path = f"/api/admin/users/{manager.id}/permissions"
    assert api.put(path, as_=exec_user, json={"permissions": {"tasks": "none"}}).status == 200
    assert watcher_ids(db, task_id) == [profile_manager.id]
    assert api.put(path, as_=exec_user, json={"permissions": {"tasks": None}}).status == 200
    assert watcher_ids(db, task_id) == [manager.id]


def test_a_level_s_tasks_cell_and_an_access_level_change_move_the_watch(portal, api, db, exec_user):  # noqa: F811
    manager, profile_manager = make_user(db, access_level="lead"), make_user(db, access_level="head")
    mine = make_client(db, manager=profile_manager)
    project = make_project(db, company_id=mine.id, delivery_manager_id=manager.id)
    task_id = portal.post("/requests", mine, role="collaborator",
                          json={"title": "Checkout", "projectId": project.id}).json["taskId"]
    assert watcher_ids(db, task_id) == [manager.id]
    assert api.put("/api/admin/permissions", as_=exec_user,
                   json={"matrix": {"lead": {"tasks": "none"}}}).status == 200
    assert watcher_ids(db, task_id) == [profile_manager.id]
    # made a head, whose level still reads tasks, the manager watches it again
    changed = api.put(f"/api/admin/users/{manager.id}", as_=exec_user, json={"access_level": "head"})
    assert changed.status == 200, changed
    assert watcher_ids(db, task_id) == [manager.id]


def test_a_request_in_no_project_follows_its_company_s_manager(portal, api, db, exec_user):  # noqa: F811
    """A request in no project watches its company's half of the chain (the client profile's delivery manager, then
    the company's owner: projects' `company_request_manager_of`), and an admin write moves that watch too: the
    profile manager's tasks override, then their deactivation and reactivation."""
    profile_manager, owner = make_user(db, access_level="lead"), make_user(db, access_level="lead")
    mine = make_client(db, manager=profile_manager, owner_id=owner.id)
    answer = portal.post("/requests", mine, role="collaborator", json={"title": "Checkout"})
    assert answer.status == 201, answer
    task_id = answer.json["taskId"]
    assert watcher_ids(db, task_id) == [profile_manager.id]
    path = f"/api/admin/users/{profile_manager.id}/permissions"
    assert api.put(path, as_=exec_user, json={"permissions": {"tasks": "none"}}).status == 200
    assert watcher_ids(db, task_id) == [owner.id]
    assert api.get(f"/api/tasks/{task_id}", as_=owner).status == 200
    assert api.put(path, as_=exec_user, json={"permissions": {"tasks": None}}).status == 200
    assert watcher_ids(db, task_id) == [profile_manager.id]
    assert api.put(f"/api/admin/users/{profile_manager.id}", as_=exec_user, json={"is_active": False}).status == 200
    assert watcher_ids(db, task_id) == [owner.id]
