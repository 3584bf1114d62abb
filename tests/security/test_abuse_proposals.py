"""Business-rule abuse in proposals (security audit S5): the owner approving their own proposal.

Document 2's internal approval flow moves a proposal from review to approved when its approvers have approved
(decisions.md section 5: one proposals:manage holder when none is listed). An employee owner (proposals:update
by default) listed themselves as the only approver (on create, or by swapping out the listed manager while in
review) and approved alone: approved, marked sent, and the client's accept ran the onboarding (project, budget,
invoice, contract) with no second person. A head owning a proposal that lists nobody approved it as the
manage holder. Nobody decides their own proposal now, as nobody decides their own leave, time or review."""
from chalicelib.areas.proposals.models import ProposalApproval
from tests.areas.proposals.factories import create
from tests.factories import make_user


def status(api, pid, user):
    return api.get(f"/api/proposals/{pid}", as_=user).json["proposal"]["status"]


def test_an_owner_cannot_list_themselves_as_approver(api, db):
    owner = make_user(db)
    made = api.post("/api/proposals", as_=owner, json={"title": "Mine", "approver_ids": [owner.id]})
    assert made.status == 400, made
    assert made.json["details"] == [{"field": "approver_ids", "message": "must not name the proposal's owner"}]


def test_an_owner_cannot_swap_themselves_in_while_in_review(api, db):
    owner = make_user(db)
    boss = make_user(db, access_level="manager")
    pid = create(api, owner, approver_ids=[boss.id])
    assert api.post(f"/api/proposals/{pid}/submit", as_=owner, json={}).status == 200
    swapped = api.put(f"/api/proposals/{pid}", as_=owner, json={"approver_ids": [owner.id]})
    assert swapped.status == 400 and swapped.json["details"][0]["field"] == "approver_ids", swapped
    assert api.post(f"/api/proposals/{pid}/approve", as_=owner, json={}).status == 403
    assert status(api, pid, owner) == "review"
    # nor may anyone else list the owner
    head = make_user(db, access_level="head")
    assert api.put(f"/api/proposals/{pid}", as_=head, json={"approver_ids": [boss.id, owner.id]}).status == 400
    # the listed manager still decides
    assert api.post(f"/api/proposals/{pid}/approve", as_=boss, json={}).status == 200
    assert status(api, pid, owner) == "approved"


def test_an_owner_listed_before_the_rule_cannot_decide(api, db):
    """A listing made before the rule: the owner's approval and request for changes are refused; the other
    listed approver still decides, and only then is the proposal approved."""
    owner = make_user(db)
    boss = make_user(db, access_level="manager")
    pid = create(api, owner, approver_ids=[boss.id])
    db.add(ProposalApproval(proposal_id=pid, user_id=owner.id, listed=True))
    db.flush()
    assert api.post(f"/api/proposals/{pid}/submit", as_=owner, json={}).status == 200
    approved = api.post(f"/api/proposals/{pid}/approve", as_=owner, json={})
    assert approved.status == 403, approved
    assert api.post(f"/api/proposals/{pid}/request-changes", as_=owner, json={"comments": "x"}).status == 403
    assert status(api, pid, owner) == "review"
    # unlisting the owner leaves the manager's approval to give: still in review
    assert api.put(f"/api/proposals/{pid}", as_=owner, json={"approver_ids": [boss.id]}).status == 200
    assert status(api, pid, owner) == "review"
    assert api.post(f"/api/proposals/{pid}/approve", as_=boss, json={}).status == 200
    assert status(api, pid, owner) == "approved"


def test_a_head_owner_needs_another_manage_holder_when_none_is_listed(api, db):
    owner = make_user(db, access_level="head")
    pid = create(api, owner)
    assert api.post(f"/api/proposals/{pid}/submit", as_=owner, json={}).status == 200
    approved = api.post(f"/api/proposals/{pid}/approve", as_=owner, json={})
    assert approved.status == 403, approved
    assert api.post(f"/api/proposals/{pid}/request-changes", as_=owner, json={"comments": "x"}).status == 403
    assert status(api, pid, owner) == "review"
    other = make_user(db, access_level="head")
    assert api.post(f"/api/proposals/{pid}/approve", as_=other, json={}).status == 200
    assert status(api, pid, owner) == "approved"


def test_a_manage_holder_approves_another_owners_proposal_listing_nobody(api, db):
    owner = make_user(db)
    head = make_user(db, access_level="head")
    pid = create(api, owner)
    assert api.post(f"/api/proposals/{pid}/submit", as_=owner, json={}).status == 200
    assert api.post(f"/api/proposals/{pid}/approve", as_=head, json={}).status == 200
    assert status(api, pid, owner) == "approved"


def test_a_listed_approver_who_is_not_the_owner_still_approves(api, db):
    owner = make_user(db)
    first, second = make_user(db, access_level="manager"), make_user(db)  # an employee may approve when listed
    pid = create(api, owner, approver_ids=[first.id, second.id])
    assert api.post(f"/api/proposals/{pid}/submit", as_=owner, json={}).status == 200
    assert api.post(f"/api/proposals/{pid}/approve", as_=first, json={}).status == 200
    assert status(api, pid, owner) == "review"
    assert api.post(f"/api/proposals/{pid}/approve", as_=second, json={}).status == 200
    assert status(api, pid, owner) == "approved"


def test_an_executive_owner_approves_their_own_proposal_listing_nobody(api, db):
    """The exception, as leave's: an executive's own leave request needs nobody's approval (document 2), so an
    executive's own proposal listing nobody is approved by the executive (docs/decisions/proposals.md)."""
    owner = make_user(db, access_level="executive")
    pid = create(api, owner)
    assert api.post(f"/api/proposals/{pid}/submit", as_=owner, json={}).status == 200
    assert api.post(f"/api/proposals/{pid}/approve", as_=owner, json={}).status == 200
    assert status(api, pid, owner) == "approved"


def test_a_duplicate_never_lists_its_new_owner(api, db):
    """A listed approver who duplicates the proposal owns the copy: they are left out of its approvers."""
    owner = make_user(db)
    boss, other = make_user(db, access_level="manager"), make_user(db, access_level="manager")
    pid = create(api, owner, approver_ids=[boss.id, other.id])
    copied = api.post(f"/api/proposals/{pid}/duplicate", as_=boss, json={})
    assert copied.status == 201, copied
    copy = api.get(f"/api/proposals/{copied.json['proposal']['id']}", as_=boss).json["proposal"]
    assert copy["owner_id"] == boss.id and copy["approver_ids"] == [other.id]
