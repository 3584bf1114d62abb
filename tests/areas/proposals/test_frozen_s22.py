"""Session 22 (terminal-state audit): what the client signed and what the approver approved stays as it was.
- An accepted proposal cannot be deleted (its contract, project, budget and invoice name it): 409.
- An approved, sent or viewed proposal's pricing and currency cannot change (a new approval would be needed, and the
  state machine has no way back from approved): 409 naming the way on, a duplicate (a new draft). Its title and
  valid_until stay changeable (the decision's sent/viewed update)."""
from sqlalchemy import select

from chalicelib.areas.proposals.models import Proposal
from tests.areas.deals.factories import make_company
from tests.areas.proposals.factories import create, price
from tests.factories import make_user

PUBLIC = "/api/proposals/public"
NEW_PRICE = {"sections": [{"title": "Build", "items": [{"description": "Everything", "quantity": 1, "unit_price": 1}]}]}


def _accepted(api, db, user):
    pid = create(api, user, company_id=make_company(db, name="Acme").id)
    price(api, user, pid)
    for step in ("submit", "approve", "mark-sent"):
        assert api.post(f"/api/proposals/{pid}/{step}", as_=user, json={}).status == 200
    token = api.put(f"/api/proposals/{pid}/share", as_=user, json={"share_enabled": True}).json["share_token"]
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "Ann", "email": "ann@acme.test"}).status == 200
    return pid


def test_an_accepted_proposal_cannot_be_deleted(api, db, exec_user):
    from chalicelib.areas.clients.models import Contract

    pid = _accepted(api, db, exec_user)
    page_id = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]["page_id"]
    answer = api.delete(f"/api/proposals/{pid}", as_=exec_user)
    assert answer.status == 409, answer
    assert "accepted" in answer.json["error"]
    assert db.scalar(select(Contract.proposal_id).where(Contract.proposal_id == pid)) == pid
    assert api.get(f"/api/proposals/{pid}", as_=exec_user).status == 200
    assert api.get(f"/api/pages/{page_id}", as_=exec_user).status == 200


def test_declined_and_expired_proposals_can_still_be_deleted(api, db, exec_user):
    for status in ("declined", "expired", "sent", "draft"):
        pid = create(api, exec_user)
        db.get(Proposal, pid).status = status
        db.flush()
        assert api.delete(f"/api/proposals/{pid}", as_=exec_user).status == 200, status


def test_approved_proposal_cannot_be_repriced_and_sent_without_reapproval(api, db, exec_user):
    owner = make_user(db, access_level="manager", name="Owner Manager")
    pid = create(api, owner, approver_ids=[exec_user.id])
    price(api, owner, pid)
    assert api.post(f"/api/proposals/{pid}/submit", as_=owner, json={}).status == 200
    assert api.post(f"/api/proposals/{pid}/approve", as_=exec_user, json={}).status == 200
    approved_total = api.get(f"/api/proposals/{pid}", as_=owner).json["proposal"]["total_amount"]
    section = api.get(f"/api/proposals/{pid}/pricing", as_=owner).json["sections"][0]["id"]
    for status in ("approved", "sent", "viewed"):
        db.get(Proposal, pid).status = status
        db.flush()
        repriced = api.put(f"/api/proposals/{pid}/pricing", as_=owner, json=NEW_PRICE)
        assert repriced.status == 409, (status, repriced)
        assert "duplicate" in repriced.json["error"], repriced.json
        assert api.delete(f"/api/proposals/{pid}/pricing/{section}", as_=exec_user).status == 409, status
        assert api.put(f"/api/proposals/{pid}", as_=owner, json={"currency": "USD"}).status == 409, status
        # what the client reads besides the price stays changeable (the decision's sent/viewed update)
        assert api.put(f"/api/proposals/{pid}", as_=owner, json={"valid_until": "2031-05-06"}).status == 200
    after = api.get(f"/api/proposals/{pid}", as_=owner).json["proposal"]
    assert (after["total_amount"], after["currency"]) == (approved_total, "AUD")
    # the way on: a duplicate is a new draft, priced and submitted again
    copy = api.post(f"/api/proposals/{pid}/duplicate", as_=owner, json={}).json["proposal"]["id"]
    assert api.put(f"/api/proposals/{copy}/pricing", as_=owner, json=NEW_PRICE).status == 200


def test_pricing_stays_changeable_before_approval(api, db, exec_user):
    pid = create(api, exec_user)
    for status in ("draft", "review", "changes_requested"):
        db.get(Proposal, pid).status = status
        db.flush()
        assert api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json=NEW_PRICE).status == 200, status
        assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={"currency": "USD"}).status == 200, status
