"""Session 25 (user lifecycle audit): the delivery manager a client's request derives is the first ACTIVE one of
the project's and the client profile's, at the portal's request (portal) and when a request moves into another
project (projects' `request_manager`, tasks' `move_request_watch`): a deactivated project manager left a moved
request with no watcher though the client's profile named an active one."""

from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import watcher_ids
from tests.factories import make_user


def test_a_request_moved_into_a_project_whose_manager_left_is_watched_by_the_profiles(portal, api, db):  # noqa: F811
    first_manager, former, profile_manager = (make_user(db, access_level="lead") for _ in range(3))
    head = make_user(db, access_level="head")
    mine = make_client(db, manager=profile_manager)
    here = make_project(db, company_id=mine.id, delivery_manager_id=first_manager.id)
    there = make_project(db, company_id=mine.id, delivery_manager_id=former.id)
    former.is_active = False
    db.flush()
    answer = portal.post("/requests", mine, role="collaborator", json={"title": "Checkout", "projectId": here.id})
    assert answer.status == 201, answer
    task_id = answer.json["taskId"]
    assert watcher_ids(db, task_id) == [first_manager.id]

    moved = api.put(f"/api/tasks/{task_id}", as_=head, json={"resource_type": "project", "resource_id": there.id})
    assert moved.status == 200, moved.json
    assert watcher_ids(db, task_id) == [profile_manager.id]
    assert api.get(f"/api/tasks/{task_id}", as_=profile_manager).status == 200


def test_a_request_moved_into_a_project_with_no_active_manager_is_watched_by_its_owner(portal, api, db):  # noqa: F811
    """The same chain as the portal's request (which asks `request_manager` too): no active delivery manager on
    either side, the project's owner, then the company's owner, watches the moved request."""
    first_manager, former, owner = (make_user(db, access_level="lead") for _ in range(3))
    head = make_user(db, access_level="head")
    mine = make_client(db)
    here = make_project(db, company_id=mine.id, delivery_manager_id=first_manager.id)
    there = make_project(db, company_id=mine.id, delivery_manager_id=former.id, owner_id=owner.id)
    make_project(db, company_id=mine.id)  # another project of the company: the chain reads its own project only
    former.is_active = False
    db.flush()
    answer = portal.post("/requests", mine, role="collaborator", json={"title": "Checkout", "projectId": here.id})
    task_id = answer.json["taskId"]
    moved = api.put(f"/api/tasks/{task_id}", as_=head, json={"resource_type": "project", "resource_id": there.id})
    assert moved.status == 200, moved.json
    assert watcher_ids(db, task_id) == [owner.id]
    assert api.get(f"/api/tasks/{task_id}", as_=owner).status == 200
