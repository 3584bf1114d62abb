"""Session 24: the project a public accept makes is linked to the proposal's deal (project_deal_links, what
PUT /api/projects/:id/deal writes), in the accept's transaction, so GET /api/projects/:id/deal keeps the
project -> deal trail. A proposal without a deal makes no link."""
from sqlalchemy import func, select

from tests.areas.deals.factories import make_company, make_deal
from tests.areas.proposals.factories import create, price, sent

PUBLIC = "/api/proposals/public"


def _accept(api, user, pid):
    token = api.put(f"/api/proposals/{pid}/share", as_=user, json={"share_enabled": True}).json["share_token"]
    answer = api.post(f"{PUBLIC}/{token}/accept", json={"name": "Ann", "email": "ann@acme.test"})
    assert answer.status == 200, answer
    return api.get(f"/api/proposals/{pid}", as_=user).json["proposal"]


def test_accept_links_the_project_to_the_proposals_deal(api, db, exec_user):
    company = make_company(db, name="Acme")
    deal = make_deal(db, company_id=company.id, title="Acme rebuild")
    pid = create(api, exec_user, company_id=company.id, deal_id=deal.id)
    price(api, exec_user, pid)
    for step in ("submit", "approve", "mark-sent"):
        assert api.post(f"/api/proposals/{pid}/{step}", as_=exec_user, json={}).status == 200
    detail = _accept(api, exec_user, pid)
    answer = api.get(f"/api/projects/{detail['project_id']}/deal", as_=exec_user)
    assert answer.status == 200, answer
    link = answer.json["deal_link"]
    assert link is not None, answer.json
    assert (link["project_id"], link["deal_id"], link["deal_title"], link["deal_status"], link["linked_by"]) == (
        detail["project_id"], deal.id, "Acme rebuild", "won", None)  # public accept: no actor
    assert link["id"] and link["created_at"]


def test_accept_without_a_deal_makes_no_link(api, db, exec_user):
    from chalicelib.areas.projects.models import ProjectDealLink

    before = db.scalar(select(func.count()).select_from(ProjectDealLink))
    detail = _accept(api, exec_user, sent(api, exec_user, company_id=make_company(db).id))
    answer = api.get(f"/api/projects/{detail['project_id']}/deal", as_=exec_user)
    assert answer.status == 200 and answer.json == {"deal_link": None}, answer
    assert db.scalar(select(func.count()).select_from(ProjectDealLink)) == before


def test_a_failed_accept_leaves_no_link(api, db, exec_user, monkeypatch):
    """All or nothing: a step after the link that fails rolls the link back with the project."""
    from chalicelib.areas.onboarding import service as onboarding_service
    from chalicelib.areas.projects.models import ProjectDealLink
    from chalicelib.core.errors import Conflict

    company = make_company(db)
    deal = make_deal(db, company_id=company.id)
    pid = sent(api, exec_user, company_id=company.id, deal_id=deal.id)
    token = api.put(f"/api/proposals/{pid}/share", as_=exec_user, json={"share_enabled": True}).json["share_token"]

    def broken(*args, **kwargs):  # the last step of the automation
        raise Conflict("onboarding refused")

    monkeypatch.setattr(onboarding_service, "auto_complete", broken)
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "A", "email": "a@b.co"}).status == 409
    assert db.scalar(select(func.count()).select_from(ProjectDealLink)
                     .where(ProjectDealLink.deal_id == deal.id)) == 0
    monkeypatch.undo()
    detail = _accept(api, exec_user, pid)
    link = api.get(f"/api/projects/{detail['project_id']}/deal", as_=exec_user).json["deal_link"]
    assert link["deal_id"] == deal.id and link["deal_status"] == "won"
