"""A project already `completed` that is given its company later gets its completion effects then (session 24's
paths audit; document 1: "when status becomes completed and the project has a company, a draft client win is
created and the assigned delivery manager is notified"): the draft client win, once per project, and
`project_completed` to the delivery manager only when that win was really made. No `project_status_changed`
(the status did not change). docs/decisions/projects.md, Side effects."""
import pytest
from sqlalchemy import select

from chalicelib.areas.relationships.models import ClientWin
from chalicelib.core.notify import Notification
from tests.factories import grant, make_user


@pytest.fixture
def boss(db):
    return make_user(db, access_level="executive", name="Boss")


def _company(api, boss, name="Client Co"):
    return api.post("/api/deals/companies", json={"name": name}, as_=boss).json["company"]


def _completed_project(api, boss, delivery, **extra):
    project = api.post("/api/projects", json={"name": "Late company", "delivery_manager_id": delivery.id, **extra},
                       as_=boss).json["project"]
    assert api.put(f"/api/projects/{project['id']}", json={"status": "completed"}, as_=boss).status == 200
    return project


def _put(api, boss, project, **values):
    answer = api.put(f"/api/projects/{project['id']}", json=values, as_=boss)
    assert answer.status == 200, answer
    return answer.json["project"]


def _wins(db, project):
    db.expire_all()
    return db.scalars(select(ClientWin).where(ClientWin.project_id == project["id"])).all()


def _told(db, user, type=None):
    db.expire_all()
    rows = db.scalars(select(Notification).where(Notification.user_id == user.id)).all()
    return [n for n in rows if type is None or n.type == type]


def test_completed_project_given_its_company_later_gets_its_win_and_the_dm_notice(api, db, boss):
    delivery, member = make_user(db, name="Delivery"), make_user(db, name="Member")
    company = _company(api, boss)
    project = _completed_project(api, boss, delivery)
    assert api.post(f"/api/projects/{project['id']}/members", json={"user_id": member.id}, as_=boss).status == 201
    assert _wins(db, project) == []  # no company yet: no completion effects
    before = {n.id for n in _told(db, delivery)}
    moved = _put(api, boss, project, company_id=company["id"])
    assert moved["status"] == "completed"
    [win] = _wins(db, project)
    assert (win.company_id, win.status) == (company["id"], "draft")
    [notice] = _told(db, delivery, "project_completed")
    assert (notice.resource_type, notice.resource_id, notice.actor_id, notice.action_url) == (
        "project", project["id"], boss.id, f"/projects/{project['id']}")
    assert notice.title == "Project completed: Late company"
    # the status did not change: nobody is told it did
    assert [n.type for n in _told(db, delivery) if n.id not in before] == ["project_completed"]
    assert _told(db, member, "project_status_changed") == []


def test_completed_with_its_company_in_one_put_fires_once(api, db, boss):
    delivery = make_user(db, name="Delivery")
    company = _company(api, boss)
    project = api.post("/api/projects", json={"name": "Both", "delivery_manager_id": delivery.id},
                       as_=boss).json["project"]
    _put(api, boss, project, status="completed", company_id=company["id"])
    assert len(_wins(db, project)) == 1
    assert len(_told(db, delivery, "project_completed")) == 1


def test_once_per_project_company_moved_or_cleared_and_given_again(api, db, boss):
    """A completed project moved from company A to B, or cleared and given a company again, keeps its one win (the
    first company's) and tells the delivery manager nothing more: the win is once per project, the notice goes with
    it (docs/decisions/projects.md, session 24)."""
    delivery = make_user(db, name="Delivery")
    first, second = _company(api, boss, "First"), _company(api, boss, "Second")
    project = _completed_project(api, boss, delivery)
    _put(api, boss, project, company_id=first["id"])
    _put(api, boss, project, company_id=second["id"])
    _put(api, boss, project, company_id=None)
    _put(api, boss, project, company_id=first["id"])
    assert [w.company_id for w in _wins(db, project)] == [first["id"]]
    assert len(_told(db, delivery, "project_completed")) == 1


def test_a_client_project_completed_with_its_company_then_moved_makes_nothing_more(api, db, boss):
    delivery = make_user(db, name="Delivery")
    first, second = _company(api, boss, "First"), _company(api, boss, "Second")
    project = _completed_project(api, boss, delivery, company_id=first["id"])
    assert len(_told(db, delivery, "project_completed")) == 1
    _put(api, boss, project, company_id=second["id"])
    assert [w.company_id for w in _wins(db, project)] == [first["id"]]
    assert len(_told(db, delivery, "project_completed")) == 1


def test_an_active_project_given_a_company_has_no_completion_effects(api, db, boss):
    delivery = make_user(db, name="Delivery")
    company = _company(api, boss)
    project = api.post("/api/projects", json={"name": "Ongoing", "delivery_manager_id": delivery.id},
                       as_=boss).json["project"]
    _put(api, boss, project, company_id=company["id"])
    assert _wins(db, project) == []
    assert _told(db, delivery, "project_completed") == []


def test_a_delivery_manager_who_may_not_read_the_project_is_not_told(api, db, boss):
    delivery = make_user(db, name="Delivery")
    company = _company(api, boss)
    project = _completed_project(api, boss, delivery)
    grant(db, delivery, "projects", "none")
    _put(api, boss, project, company_id=company["id"])
    assert len(_wins(db, project)) == 1  # the win is made all the same
    assert _told(db, delivery, "project_completed") == []


def test_the_delivery_manager_giving_the_company_is_told_too(api, db, boss):
    """As on the status path: the specification names no exception for the delivery manager who made the change."""
    delivery = make_user(db, access_level="executive", name="Delivery")
    company = _company(api, boss)
    project = _completed_project(api, boss, delivery)
    _put(api, delivery, project, company_id=company["id"])
    assert len(_told(db, delivery, "project_completed")) == 1
