"""Session 24 (moves audit): a portal request's task is watched by the delivery manager of its project (else of the
client profile) from its creation, so that they may open it and hear of it. A change of the project's delivery
manager (PUT /api/projects/:id) or a move of the request to another project (PUT /api/tasks/:id) left that watch
with the old manager: they kept reading the client's requests, and the new one answered 404 on every one of them.
Now the request's own watch follows the manager; a watch somebody chose is kept (docs/decisions/tasks.md, "The
request's watch follows the delivery manager")."""

from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task, watcher_ids
from tests.factories import make_user


def _request(portal, company, project=None, title="Checkout broken"):  # noqa: F811
    json = {"title": title, **({"projectId": project.id} if project else {})}
    answer = portal.post("/requests", company, role="collaborator", json=json)
    assert answer.status == 201, answer
    return answer.json["taskId"]


def _put_project(api, user, project, **json):
    answer = api.put(f"/api/projects/{project.id}", as_=user, json=json)
    assert answer.status == 200, answer.json
    return answer


def test_new_delivery_manager_takes_over_the_requests_watch(portal, api, db):  # noqa: F811
    old, new = make_user(db, access_level="lead"), make_user(db, access_level="lead")
    head = make_user(db, access_level="head")
    mine = make_client(db)
    project = make_project(db, company_id=mine.id, delivery_manager_id=old.id)
    first, second = _request(portal, mine, project), _request(portal, mine, project, title="Second")
    other = make_task(db, title="Staff task", resource_type="project", resource_id=project.id)

    _put_project(api, head, project, delivery_manager_id=new.id)

    assert [api.get(f"/api/tasks/{t}", as_=old).status for t in (first, second)] == [404, 404]
    assert [api.get(f"/api/tasks/{t}", as_=new).status for t in (first, second)] == [200, 200]
    assert (watcher_ids(db, first), watcher_ids(db, second), watcher_ids(db, other.id)) == ([new.id], [new.id], [])
    listed = api.get(f"/api/tasks?resource_id={project.id}", as_=new).json
    assert sorted(t["id"] for t in listed["tasks"]) == sorted([first, second])  # found in their lists too


def test_a_watch_somebody_chose_is_kept(portal, api, db):  # noqa: F811
    old, new, third = (make_user(db, access_level="lead") for _ in range(3))
    fan = make_user(db, access_level="employee")
    head = make_user(db, access_level="head")
    mine = make_client(db)
    project = make_project(db, company_id=mine.id, delivery_manager_id=old.id)
    task_id = _request(portal, mine, project)
    # the old manager is given the request, then stops and starts watching it: a watch of their own choosing
    assert api.put(f"/api/tasks/{task_id}", as_=head, json={"assignee_id": old.id}).status == 200
    assert api.delete(f"/api/tasks/{task_id}/watch", as_=old).status == 200
    assert api.post(f"/api/tasks/{task_id}/watch", as_=old).status == 200
    assert api.put(f"/api/tasks/{task_id}", as_=head, json={"reporter_id": fan.id}).status == 200
    assert api.post(f"/api/tasks/{task_id}/watch", as_=fan).status == 200  # somebody else's watch

    _put_project(api, head, project, delivery_manager_id=new.id)
    assert watcher_ids(db, task_id) == sorted([old.id, new.id, fan.id])

    # the new manager's watch is the request's: the next change moves it; nobody else's is touched
    _put_project(api, head, project, delivery_manager_id=third.id)
    assert watcher_ids(db, task_id) == sorted([old.id, third.id, fan.id])


def test_a_new_manager_who_already_watched_keeps_their_own_watch(portal, api, db):  # noqa: F811
    old, new, third = (make_user(db, access_level="lead") for _ in range(3))
    head = make_user(db, access_level="head")
    mine = make_client(db)
    project = make_project(db, company_id=mine.id, delivery_manager_id=old.id)
    task_id = _request(portal, mine, project)
    assert api.put(f"/api/tasks/{task_id}", as_=head, json={"assignee_id": new.id}).status == 200
    assert api.post(f"/api/tasks/{task_id}/watch", as_=new).status == 200  # their choice, before they manage it

    _put_project(api, head, project, delivery_manager_id=new.id)
    assert watcher_ids(db, task_id) == [new.id]
    _put_project(api, head, project, delivery_manager_id=third.id)
    assert watcher_ids(db, task_id) == sorted([new.id, third.id])  # the watch they chose stays theirs


def test_a_cleared_manager_hands_the_watch_to_the_client_profiles(portal, api, db):  # noqa: F811
    old, profile_manager = make_user(db, access_level="lead"), make_user(db, access_level="lead")
    head = make_user(db, access_level="head")
    mine = make_client(db, manager=profile_manager)
    project = make_project(db, company_id=mine.id, delivery_manager_id=old.id)
    task_id = _request(portal, mine, project)
    assert watcher_ids(db, task_id) == [old.id]

    _put_project(api, head, project, delivery_manager_id=None)

    assert watcher_ids(db, task_id) == [profile_manager.id]
    assert api.get(f"/api/tasks/{task_id}", as_=old).status == 404


def test_a_resave_or_another_field_moves_no_watch(portal, api, db):  # noqa: F811
    manager = make_user(db, access_level="lead")
    head = make_user(db, access_level="head")
    mine = make_client(db)
    project = make_project(db, company_id=mine.id, delivery_manager_id=manager.id)
    task_id = _request(portal, mine, project)
    assert api.delete(f"/api/tasks/{task_id}/watch", as_=manager).status == 200  # they stopped watching

    _put_project(api, head, project, delivery_manager_id=manager.id, name="Renamed")

    assert watcher_ids(db, task_id) == []  # not watched again by a re-save


def test_the_change_costs_the_same_statements_whatever_the_requests(portal, api, db, count_queries):  # noqa: F811
    head = make_user(db, access_level="head")
    counts, moved = [], []
    for requests in (1, 6):
        old, new = make_user(db, access_level="lead"), make_user(db, access_level="lead")
        mine = make_client(db)
        project = make_project(db, company_id=mine.id, delivery_manager_id=old.id)
        tasks = [_request(portal, mine, project, title=f"R{i}") for i in range(requests)]
        with count_queries() as counter:
            _put_project(api, head, project, delivery_manager_id=new.id)
        counts.append(counter.count)
        moved.append((tasks, new.id))
    assert counts[0] == counts[1], counts
    for tasks, manager in moved:
        assert [watcher_ids(db, t) for t in tasks] == [[manager]] * len(tasks)


# ---------------------------------------------------------------- a request moved to another project

def test_request_moved_to_another_clients_project_is_watched_by_its_manager(portal, api, db):  # noqa: F811
    dm_a, dm_b = make_user(db, access_level="employee"), make_user(db, access_level="employee")
    head = make_user(db, access_level="head")
    a, b = make_client(db), make_client(db)
    pa = make_project(db, company_id=a.id, delivery_manager_id=dm_a.id)
    pb = make_project(db, company_id=b.id, delivery_manager_id=dm_b.id)
    task_id = _request(portal, a, pa)

    moved = api.put(f"/api/tasks/{task_id}", as_=head, json={"resource_type": "project", "resource_id": pb.id})

    assert moved.status == 200, moved.json
    assert (api.get(f"/api/tasks/{task_id}", as_=dm_a).status, api.get(f"/api/tasks/{task_id}", as_=dm_b).status) \
        == (404, 200)
    assert watcher_ids(db, task_id) == [dm_b.id]


def test_request_moved_to_a_project_without_manager_goes_to_its_client_profiles(portal, api, db):  # noqa: F811
    dm_a, profile_manager = make_user(db, access_level="employee"), make_user(db, access_level="employee")
    head = make_user(db, access_level="head")
    a, b = make_client(db), make_client(db, manager=profile_manager)
    pa = make_project(db, company_id=a.id, delivery_manager_id=dm_a.id)
    pb = make_project(db, company_id=b.id)
    task_id = _request(portal, a, pa)

    assert api.put(f"/api/tasks/{task_id}", as_=head, json={"resource_id": pb.id}).status == 200

    assert watcher_ids(db, task_id) == [profile_manager.id]


def test_request_made_without_project_moved_into_one(portal, api, db):  # noqa: F811
    profile_manager, dm = make_user(db, access_level="employee"), make_user(db, access_level="employee")
    head = make_user(db, access_level="head")
    mine = make_client(db, manager=profile_manager)
    project = make_project(db, company_id=mine.id, delivery_manager_id=dm.id)
    task_id = _request(portal, mine)  # the company's task, watched by the profile's manager
    assert watcher_ids(db, task_id) == [profile_manager.id]

    assert api.put(f"/api/tasks/{task_id}", as_=head,
                   json={"resource_type": "project", "resource_id": project.id}).status == 200

    assert watcher_ids(db, task_id) == [dm.id]


def test_a_staff_task_moved_gets_no_watcher(api, db):
    dm_a, dm_b = make_user(db, access_level="employee"), make_user(db, access_level="employee")
    head = make_user(db, access_level="head")
    pa = make_project(db, delivery_manager_id=dm_a.id)
    pb = make_project(db, delivery_manager_id=dm_b.id)
    task = make_task(db, title="Staff", resource_type="project", resource_id=pa.id)

    assert api.put(f"/api/tasks/{task.id}", as_=head, json={"resource_id": pb.id}).status == 200

    assert watcher_ids(db, task.id) == []
