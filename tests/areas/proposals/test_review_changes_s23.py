"""Session 23: a change of what the approvers approve (the pricing, the currency, the content page's content) made
while the proposal is in review clears the approvals already given in that round (history `approvals_reset`), so
every listed approver approves the version they read (document 2: review -> approved when all approvers have
approved). Title, valid_until and the other fields leave them as they are, and so does a change that changes
nothing (the same pricing sent again)."""
from sqlalchemy import select

from chalicelib.core.models import HistoryEntry
from tests.areas.proposals.factories import create, price
from tests.factories import make_user

NEW_PRICE = {"sections": [{"title": "Build", "items": [{"description": "Everything", "quantity": 1, "unit_price": 1}]}]}


def _entries(db, pid):
    return list(db.scalars(select(HistoryEntry).where(HistoryEntry.entity_type == "proposal",
                                                      HistoryEntry.entity_id == pid)
                           .order_by(HistoryEntry.created_at, HistoryEntry.id)))


def _in_review_with_one_approval(api, db, exec_user):
    """An exec's priced proposal listing two managers, in review, approved by the first: (pid, first, second)."""
    first = make_user(db, access_level="manager")
    second = make_user(db, access_level="manager")
    pid = create(api, exec_user, approver_ids=[first.id, second.id])
    price(api, exec_user, pid)
    assert api.post(f"/api/proposals/{pid}/submit", as_=exec_user).status == 200
    assert api.post(f"/api/proposals/{pid}/approve", as_=first, json={"comments": "fine"}).status == 200
    return pid, first, second


def _approved_by(api, user, pid):
    approvals = api.get(f"/api/proposals/{pid}", as_=user).json["proposal"]["approvals"]
    return sorted(a["user_id"] for a in approvals if a["approved_at"])


def test_a_pricing_change_in_review_needs_the_approvals_again(api, db, exec_user):
    pid, first, second = _in_review_with_one_approval(api, db, exec_user)
    assert _approved_by(api, exec_user, pid) == [first.id]
    assert api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json=NEW_PRICE).status == 200
    assert _approved_by(api, exec_user, pid) == []
    reset = _entries(db, pid)[-1]
    assert reset.action == "approvals_reset", [e.action for e in _entries(db, pid)]
    assert reset.actor_id == exec_user.id
    assert reset.changes["approver_ids"] == [first.id] and reset.changes["reason"] == "pricing"
    # the second approval no longer completes the round: the first approver approves the new price again
    assert api.post(f"/api/proposals/{pid}/approve", as_=second, json={}).status == 200
    assert api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]["status"] == "review"
    assert api.post(f"/api/proposals/{pid}/approve", as_=first, json={}).status == 200
    assert api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]["status"] == "approved"


def test_the_same_pricing_sent_again_keeps_the_approvals(api, db, exec_user):
    pid, first, _ = _in_review_with_one_approval(api, db, exec_user)
    price(api, exec_user, pid)  # the pricing the approver read, sent again
    assert _approved_by(api, exec_user, pid) == [first.id]
    assert "approvals_reset" not in [e.action for e in _entries(db, pid)]


def test_deleting_a_pricing_section_in_review_needs_the_approvals_again(api, db, exec_user):
    pid, first, _ = _in_review_with_one_approval(api, db, exec_user)
    section = api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json["sections"][1]["id"]
    assert api.delete(f"/api/proposals/{pid}/pricing/{section}", as_=exec_user).status == 200
    assert _approved_by(api, exec_user, pid) == []
    assert _entries(db, pid)[-1].action == "approvals_reset"


def test_a_currency_change_in_review_needs_the_approvals_again(api, db, exec_user):
    pid, first, _ = _in_review_with_one_approval(api, db, exec_user)
    # neither a field that is not the price nor the same currency touches them
    assert api.put(f"/api/proposals/{pid}", as_=exec_user,
                   json={"title": "Renamed", "valid_until": "2031-01-01", "currency": "AUD"}).status == 200
    assert _approved_by(api, exec_user, pid) == [first.id]
    assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={"currency": "USD"}).status == 200
    assert _approved_by(api, exec_user, pid) == []
    reset = _entries(db, pid)[-1]
    assert (reset.action, reset.changes["reason"]) == ("approvals_reset", "currency")


def test_a_content_change_in_review_needs_the_approvals_again(api, db, exec_user):
    pid, first, _ = _in_review_with_one_approval(api, db, exec_user)
    page_id = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]["page_id"]
    assert api.patch(f"/api/pages/{page_id}", as_=exec_user, json={"icon": "x"}).status == 200
    assert _approved_by(api, exec_user, pid) == [first.id]
    assert api.patch(f"/api/pages/{page_id}", as_=exec_user, json={"content": "Now for half"}).status == 200
    assert _approved_by(api, exec_user, pid) == []
    reset = _entries(db, pid)[-1]
    assert (reset.action, reset.changes["reason"], reset.actor_id) == ("approvals_reset", "content", exec_user.id)


def test_a_change_with_no_approval_given_records_nothing(api, db, exec_user):
    approver = make_user(db, access_level="manager")
    pid = create(api, exec_user, approver_ids=[approver.id])
    assert api.post(f"/api/proposals/{pid}/submit", as_=exec_user).status == 200
    assert api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json=NEW_PRICE).status == 200
    assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={"currency": "USD"}).status == 200
    assert "approvals_reset" not in [e.action for e in _entries(db, pid)]
    assert api.post(f"/api/proposals/{pid}/approve", as_=approver, json={}).status == 200
    assert api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]["status"] == "approved"
