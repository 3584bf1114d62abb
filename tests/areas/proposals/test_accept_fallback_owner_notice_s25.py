"""Session 25: the public accept tells the owner of the project it made. When the proposal's owner is inactive the
project goes to the company's owner (session 24), who was told nothing: now they are told `proposal_accepted` of the
project that waits for them (once; the proposal's owner, when active and the project's owner, once as before; nobody
when the project has no owner). Sent like the owner's notice: written in the accept's transaction, delivered after
commit (docs/decisions/proposals.md, session 25)."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.deals.factories import make_company
from tests.areas.proposals.factories import accept_shared, sent_and_shared, shared_with_no_active_owner
from tests.factories import deactivate, make_user

def _accept(api, exec_user, pid, token) -> str:
    accept_shared(api, token)
    return api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]["project_id"]


def _accepted_notices(db, *users) -> list:
    return db.scalars(select(Notification).where(Notification.type == "proposal_accepted",
                                                 Notification.user_id.in_([u.id for u in users]))).all()


def test_an_inactive_owners_accept_tells_the_company_owner_who_owns_the_project(api, db, exec_user):
    owner = make_user(db, access_level="executive")
    boss = make_user(db, access_level="employee", name="Carl Company")  # cannot read the proposal: not its owner
    company = make_company(db, owner_id=boss.id)
    pid, token = sent_and_shared(api, owner, company_id=company.id)
    deactivate(db, owner)
    project_id = _accept(api, exec_user, pid, token)
    notices = _accepted_notices(db, owner, boss)
    assert [n.user_id for n in notices] == [boss.id]
    notice = notices[0]
    # about the project they now own (they may not read the proposal: its title is the project's name)
    assert (notice.resource_type, notice.resource_id, notice.action_url) == (
        "project", project_id, f"/projects/{project_id}")
    assert notice.title == "Proposal accepted: Website rebuild" and notice.actor_id is None
    assert api.get(f"/api/projects/{project_id}", as_=boss).status == 200  # the link opens for them
    listed = api.get("/api/notifications", as_=boss)
    assert listed.status == 200, listed
    assert [n["type"] for n in listed.json["notifications"]].count("proposal_accepted") == 1


def test_an_active_owner_is_told_once_and_the_company_owner_not_at_all(api, db, exec_user):
    owner = make_user(db, access_level="executive")
    boss = make_user(db, access_level="executive")
    company = make_company(db, owner_id=boss.id)
    pid, token = sent_and_shared(api, owner, company_id=company.id)
    _accept(api, exec_user, pid, token)
    notices = _accepted_notices(db, owner, boss)
    assert [(n.user_id, n.resource_type, n.resource_id) for n in notices] == [(owner.id, "proposal", pid)]


def test_an_owner_who_also_owns_the_company_is_told_once(api, db, exec_user):
    owner = make_user(db, access_level="executive")
    company = make_company(db, owner_id=owner.id)
    pid, token = sent_and_shared(api, owner, company_id=company.id)
    _accept(api, exec_user, pid, token)
    assert [n.user_id for n in _accepted_notices(db, owner)] == [owner.id]


def test_no_active_owner_anywhere_tells_nobody(api, db, exec_user):
    owner, boss, pid, token = shared_with_no_active_owner(api, db)
    _accept(api, exec_user, pid, token)
    assert _accepted_notices(db, owner, boss) == []
