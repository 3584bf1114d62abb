"""Session 24 (records moved between parents): once approved (approved, sent, viewed) a proposal's client stays the
one the approver approved an offer to. A PUT changing company_id, deal_id or contact_id to another value (null
included) answers 409 naming the way on (a duplicate); the stored value sent back is no change. A contact alone
may change to another person of the proposal's own company (the same client). In review references stay editable
(session 23)."""
from sqlalchemy import select

from chalicelib.areas.proposals.models import Proposal
from chalicelib.core.models import HistoryEntry
from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.areas.proposals.factories import create, price
from tests.factories import grant, make_user

PUBLIC = "/api/proposals/public"


def _approved_to_first_client(api, db):
    """An owner's priced proposal to the first client (company, deal, contact), approved by another user, sent and
    shared: (owner, pid, token, first company, its deal, its contact)."""
    owner = make_user(db, access_level="employee")
    approver = make_user(db, access_level="manager")
    grant(db, owner, "proposals", "update")
    grant(db, approver, "proposals", "update")
    first = make_company(db, name="First Client")
    deal, contact = make_deal(db, company_id=first.id), make_contact(db, company_id=first.id)
    pid = create(api, owner, company_id=first.id, deal_id=deal.id, contact_id=contact.id, approver_ids=[approver.id])
    price(api, owner, pid)
    assert api.post(f"/api/proposals/{pid}/submit", as_=owner, json={}).status == 200
    assert api.post(f"/api/proposals/{pid}/approve", as_=approver, json={}).status == 200
    assert api.post(f"/api/proposals/{pid}/mark-sent", as_=owner, json={}).status == 200
    token = api.put(f"/api/proposals/{pid}/share", as_=owner, json={"share_enabled": True}).json["share_token"]
    return owner, pid, token, first, deal, contact


def _references(db, pid):
    db.expire_all()
    proposal = db.get(Proposal, pid)
    return proposal.company_id, proposal.deal_id, proposal.contact_id


def _updates(db, pid):
    return [e.changes for e in db.scalars(select(HistoryEntry).where(
        HistoryEntry.entity_type == "proposal", HistoryEntry.entity_id == pid, HistoryEntry.action == "updated")
        .order_by(HistoryEntry.created_at, HistoryEntry.id))]


def test_a_sent_proposal_cannot_be_readdressed_to_another_client(api, db, exec_user):
    owner, pid, token, first, deal, contact = _approved_to_first_client(api, db)
    second = make_company(db, name="Second Client")
    second_deal = make_deal(db, company_id=second.id)
    moved = api.put(f"/api/proposals/{pid}", as_=owner, json={
        "company_id": second.id, "deal_id": second_deal.id, "contact_id": make_contact(db, company_id=second.id).id})
    assert moved.status == 409, moved
    assert "duplicate it to address another client" in moved.json["error"]
    assert _references(db, pid) == (first.id, deal.id, contact.id)
    assert _updates(db, pid) == []
    # the first client's link accepts the offer to the first client; the second is left as it was
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "Fred", "email": "fred@first.example"}).status == 200
    companies = "/api/deals/companies"
    assert api.get(f"{companies}/{first.id}", as_=exec_user).json["company"]["status"] == "client"
    assert api.get(f"{companies}/{second.id}", as_=exec_user).json["company"]["status"] == "prospect"
    assert api.get(f"/api/deals/deals/{second_deal.id}", as_=exec_user).json["deal"]["status"] == "open"
    assert api.get(f"/api/deals/deals/{deal.id}", as_=exec_user).json["deal"]["status"] == "won"


def test_each_reference_alone_is_refused_once_approved_null_included(api, db):
    owner, pid, _, first, deal, contact = _approved_to_first_client(api, db)
    second = make_company(db)
    changes = [{"company_id": second.id}, {"company_id": None}, {"deal_id": make_deal(db, company_id=second.id).id},
               {"deal_id": make_deal(db, company_id=first.id).id}, {"deal_id": None},
               {"contact_id": make_contact(db, company_id=second.id).id}, {"contact_id": make_contact(db).id},
               {"contact_id": None}]
    for status in ("approved", "sent", "viewed"):
        db.get(Proposal, pid).status = status
        db.flush()
        for change in changes:
            answer = api.put(f"/api/proposals/{pid}", as_=owner, json={"title": "Renamed", **change})
            assert answer.status == 409, (status, change, answer)
            assert f"status {status}" in answer.json["error"] and list(change)[0] in answer.json["error"]
            assert _references(db, pid) == (first.id, deal.id, contact.id), (status, change)
    assert _updates(db, pid) == []  # nothing written, the title with the rest


def test_a_reference_set_after_approval_is_refused_too(api, db, exec_user):
    pid = create(api, exec_user)  # no company, deal or contact
    for step in ("submit", "approve"):
        assert api.post(f"/api/proposals/{pid}/{step}", as_=exec_user, json={}).status == 200
    company = make_company(db)
    for change in ({"company_id": company.id}, {"deal_id": make_deal(db, company_id=company.id).id},
                   {"contact_id": make_contact(db, company_id=company.id).id}):
        answer = api.put(f"/api/proposals/{pid}", as_=exec_user, json=change)
        assert answer.status == 409, (change, answer)
    assert _references(db, pid) == (None, None, None)


def test_the_stored_references_sent_back_are_no_change(api, db):
    owner, pid, _, first, deal, contact = _approved_to_first_client(api, db)
    answer = api.put(f"/api/proposals/{pid}", as_=owner, json={
        "title": "Website rebuild, phase 1", "company_id": first.id, "deal_id": deal.id, "contact_id": contact.id})
    assert answer.status == 200, answer
    assert _references(db, pid) == (first.id, deal.id, contact.id)
    assert _updates(db, pid) == [{"title": {"from": "Website rebuild", "to": "Website rebuild, phase 1"}}]


def test_another_person_of_the_same_client_may_be_addressed(api, db):
    owner, pid, token, first, deal, contact = _approved_to_first_client(api, db)
    colleague = make_contact(db, company_id=first.id)
    for status in ("approved", "sent", "viewed"):
        db.get(Proposal, pid).status = status
        db.flush()
        to = colleague.id if status != "sent" else contact.id
        answer = api.put(f"/api/proposals/{pid}", as_=owner, json={"contact_id": to, "company_id": first.id})
        assert answer.status == 200, (status, answer)
        assert _references(db, pid) == (first.id, deal.id, to)
    assert [c["contact_id"]["to"] for c in _updates(db, pid)] == [colleague.id, contact.id, colleague.id]


def test_a_contact_change_without_a_company_is_refused(api, db, exec_user):
    company = make_company(db)
    contact = make_contact(db, company_id=company.id)
    pid = create(api, exec_user, contact_id=contact.id)  # a person, no client named
    for step in ("submit", "approve"):
        assert api.post(f"/api/proposals/{pid}/{step}", as_=exec_user, json={}).status == 200
    answer = api.put(f"/api/proposals/{pid}", as_=exec_user,
                     json={"contact_id": make_contact(db, company_id=company.id).id})
    assert answer.status == 409, answer
    assert _references(db, pid) == (None, None, contact.id)


def test_in_review_the_references_stay_editable(api, db, exec_user):
    approver = make_user(db, access_level="manager")
    first, second = make_company(db), make_company(db)
    pid = create(api, exec_user, company_id=first.id, approver_ids=[approver.id])
    assert api.post(f"/api/proposals/{pid}/submit", as_=exec_user, json={}).status == 200
    new = {"company_id": second.id, "deal_id": make_deal(db, company_id=second.id).id,
           "contact_id": make_contact(db, company_id=second.id).id}
    answer = api.put(f"/api/proposals/{pid}", as_=exec_user, json=new)
    assert answer.status == 200, answer
    assert _references(db, pid) == (new["company_id"], new["deal_id"], new["contact_id"])
