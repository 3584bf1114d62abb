"""Session 24: the public accept makes its project and budget owned by an active user or by nobody, as the staff creates
refuse an inactive owner (400): the proposal's owner when active, else its company's owner when active, else none;
the project's owner-member only for an active owner (docs/decisions/proposals.md, session 24)."""
from sqlalchemy import select

from chalicelib.areas.budgets.models import Budget
from chalicelib.areas.projects.models import Project, ProjectMember
from chalicelib.core.models import HistoryEntry
from chalicelib.core.notify import Notification
from tests.areas.deals.factories import make_company
from tests.areas.proposals.factories import accept_shared, sent_and_shared, shared_with_no_active_owner
from tests.factories import deactivate, make_user

def _accept(api, db, viewer, pid, token) -> tuple[Project, Budget, dict]:
    accept_shared(api, token)
    detail = api.get(f"/api/proposals/{pid}", as_=viewer).json["proposal"]
    project, budget = db.get(Project, detail["project_id"]), db.get(Budget, detail["budget_id"])
    db.refresh(project)
    db.refresh(budget)
    return project, budget, detail


def _members(db, project_id) -> dict:
    return dict(db.execute(select(ProjectMember.user_id, ProjectMember.role)
                           .where(ProjectMember.project_id == project_id)).all())


def test_a_deactivated_owners_proposal_gives_the_project_and_budget_to_the_companys_owner(api, db, exec_user):
    owner = make_user(db, access_level="executive", name="Olive Owner")
    boss = make_user(db, access_level="executive", name="Carl Company")
    company = make_company(db, owner_id=boss.id)
    pid, token = sent_and_shared(api, owner, company_id=company.id)
    deactivate(db, owner)
    project, budget, detail = _accept(api, db, exec_user, pid, token)
    assert (project.owner_id, budget.owner_id) == (boss.id, boss.id)
    assert _members(db, project.id) == {boss.id: "owner"}  # the leaver is no member of the client's project
    assert detail["owner_id"] == owner.id  # the proposal stays its owner's
    record = api.get(f"/api/projects/{project.id}", as_=exec_user).json["project"]
    assert record["owner_name"] == "Carl Company"
    # the notice is the proposal owner's, who cannot sign in: nobody is told; the history has no actor
    assert not db.scalars(select(Notification).where(Notification.resource_id == pid,
                                                     Notification.type == "proposal_accepted")).all()
    assert db.scalar(select(HistoryEntry.actor_id).where(HistoryEntry.entity_id == pid,
                                                         HistoryEntry.action == "accepted")) is None


def test_no_active_owner_anywhere_makes_a_project_and_budget_without_owner(api, db, exec_user):
    owner, boss, pid, token = shared_with_no_active_owner(api, db)
    project, budget, _ = _accept(api, db, exec_user, pid, token)
    assert (project.owner_id, budget.owner_id) == (None, None)
    assert _members(db, project.id) == {}
    record = api.get(f"/api/projects/{project.id}", as_=exec_user)
    assert record.status == 200 and record.json["project"]["owner_id"] is None, record
    record = api.get(f"/api/budgets/{budget.id}", as_=exec_user)
    assert record.status == 200 and record.json["budget"]["owner_id"] is None, record


def test_a_deactivated_owners_proposal_without_company_makes_an_ownerless_project(api, db, exec_user):
    owner = make_user(db, access_level="executive")
    pid, token = sent_and_shared(api, owner)
    deactivate(db, owner)
    project, budget, _ = _accept(api, db, exec_user, pid, token)
    assert (project.owner_id, budget.owner_id, _members(db, project.id)) == (None, None, {})


def test_an_active_owner_keeps_the_project_and_budget_over_the_companys_owner(api, db, exec_user):
    owner = make_user(db, access_level="executive")
    boss = make_user(db, access_level="executive")
    company = make_company(db, owner_id=boss.id)
    pid, token = sent_and_shared(api, owner, company_id=company.id)
    project, budget, _ = _accept(api, db, exec_user, pid, token)
    assert (project.owner_id, budget.owner_id) == (owner.id, owner.id)
    assert _members(db, project.id) == {owner.id: "owner"}
    assert db.scalar(select(Notification.user_id).where(Notification.resource_id == pid,
                                                        Notification.type == "proposal_accepted")) == owner.id
