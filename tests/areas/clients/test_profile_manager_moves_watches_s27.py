"""Session 27 (left from session 25): a change of a client profile's delivery manager (PUT
/api/clients/:companyId/profile) moved no request's watch. The company's requests in no project, and those in a
project with no delivery manager of its own, kept the old manager watching and the new one was never added, while
every other change of the chain (a project's manager, company or owner, a request's move, a user's deactivation)
re-derives them. Now set, changed or cleared, the profile's manager re-derives them in the same transaction
(docs/decisions/clients.md, session 27)."""
from sqlalchemy import select

from chalicelib.areas.tasks.models import TaskWatcher
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def _request(portal, company, project=None, title="Site down"):
    body = {"title": title, **({"projectId": project.id} if project is not None else {})}
    answer = portal.post("/requests", company, role="collaborator", json=body)
    assert answer.status == 201, answer
    return answer.json["taskId"]


def _watchers(db, task_id) -> list[str]:
    return sorted(db.scalars(select(TaskWatcher.user_id).where(TaskWatcher.task_id == task_id)).all())


def _manager(api, as_, company, manager):
    answer = api.put(f"/api/clients/{company.id}/profile", as_=as_,
                     json={"delivery_manager_id": manager.id if manager is not None else None})
    assert answer.status == 200, answer


def test_a_changed_profile_manager_takes_the_watch_of_the_requests_that_derive_it(portal, api, db, exec_user):
    old, new, project_dm = make_user(db), make_user(db), make_user(db)
    company = make_client(db, manager=old)
    other = make_client(db, manager=old)
    bare = make_project(db, company_id=company.id)  # no delivery manager of its own: the profile's
    managed = make_project(db, company_id=company.id, delivery_manager_id=project_dm.id)
    loose = _request(portal, company, title="No project")
    in_bare = _request(portal, company, bare, "In a project without a manager")
    in_managed = _request(portal, company, managed, "In a managed project")
    elsewhere = _request(portal, other, title="Another client's")
    assert [_watchers(db, t) for t in (loose, in_bare, in_managed, elsewhere)] == [
        [old.id], [old.id], [project_dm.id], [old.id]]
    _manager(api, exec_user, company, new)
    # was: [old.id], [old.id] (the new manager never added, the old one kept)
    assert [_watchers(db, t) for t in (loose, in_bare, in_managed, elsewhere)] == [
        [new.id], [new.id], [project_dm.id], [old.id]]
    assert api.get(f"/api/tasks/{loose}", as_=new).status == 200  # they may open it: they watch it


def test_a_cleared_profile_manager_hands_the_watch_down_the_chain(portal, api, db, exec_user):
    old, owner = make_user(db), make_user(db)
    company = make_client(db, manager=old, owner_id=owner.id)
    bare = make_project(db, company_id=company.id)
    loose, in_bare = _request(portal, company), _request(portal, company, bare)
    assert [_watchers(db, t) for t in (loose, in_bare)] == [[old.id], [old.id]]
    _manager(api, exec_user, company, None)
    # the company's owner, next in the chain (was: the old manager kept watching)
    assert [_watchers(db, t) for t in (loose, in_bare)] == [[owner.id], [owner.id]]


def test_a_profile_manager_set_for_the_first_time_takes_the_watch(portal, api, db, exec_user):
    first = make_user(db)
    company = make_client(db)
    loose = _request(portal, company)
    assert _watchers(db, loose) == []  # nobody to watch it
    _manager(api, exec_user, company, first)
    assert _watchers(db, loose) == [first.id]


def test_a_watch_the_old_manager_chose_is_kept_and_an_unchanged_manager_moves_nothing(portal, api, db, exec_user):
    old, new = make_user(db), make_user(db)
    company = make_client(db, manager=old)
    loose = _request(portal, company)
    db.query(TaskWatcher).filter(TaskWatcher.task_id == loose).delete()
    db.add(TaskWatcher(task_id=loose, user_id=old.id))  # a watch they made themselves (POST /watch)
    db.flush()
    _manager(api, exec_user, company, old)  # sent back as read: nothing moves
    assert _watchers(db, loose) == [old.id]
    _manager(api, exec_user, company, new)
    assert _watchers(db, loose) == sorted([old.id, new.id])
