"""Session 25 (who hears of a completion): on `completed` with a company, `project_completed` goes to the first of
[the project's delivery manager, the client profile's, the project's owner, the company's owner] who is active AND
may read the project (queries.project_readers), the actor allowed (document 1: "the assigned delivery manager is
notified"). Before, it went to the project's delivery manager only: one who had left was dropped by notify and
nobody heard of the completion. docs/decisions/projects.md, Side effects."""
import pytest
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project
from tests.factories import make_user


@pytest.fixture
def boss(db):
    return make_user(db, access_level="executive", name="Boss")


def _types(db, user):
    db.expire_all()
    return sorted(db.scalars(select(Notification.type).where(Notification.user_id == user.id)).all())


def _complete(api, project, actor):
    answer = api.put(f"/api/projects/{project.id}", json={"status": "completed"}, as_=actor)
    assert answer.status == 200, answer.json


def test_dm_left_the_profiles_dm_is_told(api, db, boss):
    former = make_user(db, access_level="manager")
    profile_dm = make_user(db, access_level="head")
    company = make_client(db, manager=profile_dm)
    project = make_project(db, company_id=company.id, delivery_manager_id=former.id, owner_id=boss.id)
    former.is_active = False
    db.flush()
    assert api.get(f"/api/projects/{project.id}", as_=profile_dm).status == 200  # they may read it
    _complete(api, project, boss)
    assert _types(db, profile_dm) == ["project_completed"]
    assert _types(db, former) == [] and _types(db, boss) == []


def test_no_dm_anywhere_the_projects_owner_is_told(api, db, boss):
    owner = make_user(db, access_level="lead")
    company_owner = make_user(db, access_level="head")
    company = make_client(db, owner_id=company_owner.id)
    project = make_project(db, company_id=company.id, owner_id=owner.id)
    _complete(api, project, boss)
    assert _types(db, owner) == ["project_completed"]  # not also project_status_changed: one notice per change
    assert _types(db, company_owner) == []


def test_the_owner_completing_it_is_told_as_the_dm_is(api, db, boss):
    """The actor is allowed, as a delivery manager who completes their project is told today."""
    company = make_client(db)
    project = make_project(db, company_id=company.id, owner_id=boss.id)
    _complete(api, project, boss)
    assert _types(db, boss) == ["project_completed"]


def test_a_profile_dm_who_may_not_read_the_project_is_passed_over(api, db, boss):
    """A manager-level profile DM outside the project's scope (no squad of it, nobody of their team on it)."""
    profile_dm = make_user(db, access_level="manager")
    owner = make_user(db, access_level="lead")
    company = make_client(db, manager=profile_dm)
    project = make_project(db, company_id=company.id, owner_id=owner.id)
    assert api.get(f"/api/projects/{project.id}", as_=profile_dm).status in (403, 404)
    _complete(api, project, boss)
    assert _types(db, profile_dm) == []
    assert _types(db, owner) == ["project_completed"]


def test_nobody_on_the_project_the_companys_owner_is_told(api, db, boss):
    gone = make_user(db, access_level="lead")
    company_owner = make_user(db, access_level="head")
    company = make_client(db, owner_id=company_owner.id)
    project = make_project(db, company_id=company.id, owner_id=gone.id)
    gone.is_active = False
    db.flush()
    _complete(api, project, boss)
    assert _types(db, company_owner) == ["project_completed"]


def test_an_active_dm_alone_is_told_unchanged(api, db, boss):
    delivery = make_user(db, access_level="lead")
    profile_dm = make_user(db, access_level="head")
    owner = make_user(db, access_level="lead")
    company = make_client(db, manager=profile_dm)
    project = make_project(db, company_id=company.id, delivery_manager_id=delivery.id, owner_id=owner.id)
    _complete(api, project, boss)
    assert _types(db, delivery) == ["project_completed"]
    assert _types(db, profile_dm) == []
    assert _types(db, owner) == ["project_status_changed"]


def test_completed_before_given_its_company_later_tells_the_profiles_dm(api, db, boss):
    """The company-later path (session 24) picks the same recipient."""
    former = make_user(db, access_level="lead")
    profile_dm = make_user(db, access_level="head")
    company = make_client(db, manager=profile_dm)
    project = make_project(db, delivery_manager_id=former.id, owner_id=boss.id)
    _complete(api, project, boss)  # no company yet: no completion effects
    former.is_active = False
    db.flush()
    answer = api.put(f"/api/projects/{project.id}", json={"company_id": company.id}, as_=boss)
    assert answer.status == 200, answer.json
    assert _types(db, profile_dm) == ["project_completed"]
    assert _types(db, boss) == []
