"""Proposals: the approval flow's notices (docs/decisions/proposals.md, "Approval flow"). A submit tells the listed
approvers who may read the proposal (`proposal_submitted`, one statement for them all); the move to `approved`
tells the owner (`proposal_approved`); the actor is never told of their own move."""
from datetime import timedelta

from sqlalchemy import select

from chalicelib.core.notify import Notification
from chalicelib.core.notify_models import NotificationDelivery
from tests.areas.proposals.factories import create
from tests.factories import grant, make_user

TITLE = "Website rebuild"


def notices(db, pid, type):
    """{user_id: [(title, action_url, resource_type, resource_id, actor_id)]} of this type on the proposal."""
    rows = db.scalars(select(Notification).where(Notification.type == type, Notification.resource_id == pid)
                      .order_by(Notification.created_at, Notification.id)).all()
    found = {}
    for n in rows:
        found.setdefault(n.user_id, []).append((n.title, n.action_url, n.resource_type, n.resource_id, n.actor_id))
    return found


def notice(pid, title, actor):
    return (title, f"/proposals/{pid}", "proposal", pid, actor.id)


def age_notices(db, pid):
    """The proposal's notices made more than core notify's 5-minute de-duplication window ago."""
    for made in db.scalars(select(Notification).where(Notification.resource_id == pid)):
        made.created_at -= timedelta(minutes=10)
    db.flush()


def post(api, pid, step, user, **body):
    answer = api.post(f"/api/proposals/{pid}/{step}", as_=user, json=body)
    assert answer.status == 200, (step, answer)


def test_submit_tells_each_listed_approver_but_the_submitter(api, db, exec_user, employee):
    first, second = make_user(db, access_level="manager"), make_user(db, access_level="lead")
    pid = create(api, employee, approver_ids=[first.id, exec_user.id, second.id])  # the owner is never listed
    assert notices(db, pid, "proposal_submitted") == {}  # listing is not submitting
    post(api, pid, "submit", exec_user)
    expected = [notice(pid, f"Proposal to approve: {TITLE}", exec_user)]
    assert notices(db, pid, "proposal_submitted") == {first.id: expected, second.id: expected}
    # the catalogue's defaults apply (proposal_submitted: e-mail and push on, chat off)
    made = db.scalars(select(Notification.id).where(Notification.type == "proposal_submitted",
                                                    Notification.resource_id == pid)).all()
    channels = db.scalars(select(NotificationDelivery.channel).where(NotificationDelivery.notification_id.in_(made)))
    assert sorted(channels) == ["email", "email", "push", "push"]
    # the approvers can open what they were told of
    for approver in (first, second):
        assert api.get(f"/api/proposals/{pid}", as_=approver).status == 200


def test_submit_by_someone_else_does_not_ask_a_listed_owner(api, db, exec_user, employee):
    """Nobody decides their own proposal (tests/security/test_abuse_proposals.py): the owner cannot be listed, and
    an owner listed before that rule (a row put in directly) is not asked to approve a submit by another."""
    from chalicelib.areas.proposals.models import ProposalApproval

    approver = make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[approver.id])
    db.add(ProposalApproval(proposal_id=pid, user_id=employee.id, listed=True))
    db.flush()
    post(api, pid, "submit", exec_user)
    expected = [notice(pid, f"Proposal to approve: {TITLE}", exec_user)]
    assert notices(db, pid, "proposal_submitted") == {approver.id: expected}


def test_submit_without_listed_approvers_tells_nobody(api, db, exec_user, employee):
    """Any proposals:manage holder may approve such a proposal; telling them all would be spam (decisions)."""
    pid = create(api, employee)
    post(api, pid, "submit", employee)
    assert notices(db, pid, "proposal_submitted") == {}
    only_me = create(api, employee, approver_ids=[exec_user.id])  # only the submitter listed
    post(api, only_me, "submit", exec_user)
    assert notices(db, only_me, "proposal_submitted") == {}


def test_submit_tells_only_approvers_who_may_read_it(api, db, employee):
    """A listed approver without proposals:view (an override), or deactivated since, is not told."""
    reader, blind, gone = (make_user(db, access_level="employee") for _ in range(3))
    pid = create(api, employee, approver_ids=[reader.id, blind.id, gone.id])
    grant(db, blind, "proposals", "none")
    gone.is_active = False
    db.flush()
    assert api.get(f"/api/proposals/{pid}", as_=blind).status == 403
    post(api, pid, "submit", employee)
    assert set(notices(db, pid, "proposal_submitted")) == {reader.id}


def test_resubmit_tells_the_approvers_again(api, db, employee):
    first, second = make_user(db, access_level="manager"), make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[first.id, second.id])
    post(api, pid, "submit", employee)
    post(api, pid, "approve", first)
    post(api, pid, "request-changes", second, comments="Lower the price")
    age_notices(db, pid)
    post(api, pid, "submit", employee)  # a new round: both must approve again
    told = notices(db, pid, "proposal_submitted")
    assert sorted(told) == sorted([first.id, second.id])
    assert all(len(told[user]) == 2 for user in told)
    assert notices(db, pid, "proposal_approved") == {}


def test_partial_approval_tells_nobody_and_the_last_tells_the_owner(api, db, employee):
    first, second = make_user(db, access_level="manager"), make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[first.id, second.id])
    post(api, pid, "submit", employee)
    post(api, pid, "approve", first, comments="Fine")
    assert notices(db, pid, "proposal_approved") == {}
    assert api.get(f"/api/proposals/{pid}", as_=employee).json["proposal"]["status"] == "review"
    post(api, pid, "approve", second)
    assert api.get(f"/api/proposals/{pid}", as_=employee).json["proposal"]["status"] == "approved"
    assert notices(db, pid, "proposal_approved") == {employee.id: [notice(pid, f"Proposal approved: {TITLE}", second)]}


def test_unlisted_manage_holder_approval_tells_the_owner(api, db, exec_user, employee):
    pid = create(api, employee)
    post(api, pid, "submit", employee)
    post(api, pid, "approve", exec_user)
    assert notices(db, pid, "proposal_approved") == {employee.id: [notice(pid, f"Proposal approved: {TITLE}", exec_user)]}


def test_the_owner_approving_their_own_is_not_told(api, db, exec_user):
    """Only an executive approves their own proposal, and only one listing nobody (docs/decisions/proposals.md;
    an owner listed as approver is refused: tests/security/test_abuse_proposals.py)."""
    unlisted = create(api, exec_user)
    post(api, unlisted, "submit", exec_user)
    post(api, unlisted, "approve", exec_user)
    assert api.get(f"/api/proposals/{unlisted}", as_=exec_user).json["proposal"]["status"] == "approved"
    assert notices(db, unlisted, "proposal_approved") == {}


def test_update_that_completes_the_approvals_tells_the_owner(api, db, exec_user, employee):
    """Unlisting the approvers still pending moves the proposal to approved (decisions): the owner is told as
    for a final approval, unless the owner made that update."""
    done, pending = make_user(db, access_level="manager"), make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[done.id, pending.id])
    post(api, pid, "submit", employee)
    post(api, pid, "approve", done)
    assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={"approver_ids": [done.id]}).status == 200
    assert api.get(f"/api/proposals/{pid}", as_=employee).json["proposal"]["status"] == "approved"
    assert notices(db, pid, "proposal_approved") == {employee.id: [notice(pid, f"Proposal approved: {TITLE}", exec_user)]}

    own = create(api, employee, approver_ids=[done.id, pending.id])
    post(api, own, "submit", employee)
    post(api, own, "approve", done)
    assert api.put(f"/api/proposals/{own}", as_=employee, json={"approver_ids": [done.id]}).status == 200
    assert api.get(f"/api/proposals/{own}", as_=employee).json["proposal"]["status"] == "approved"
    assert notices(db, own, "proposal_approved") == {}


def test_submit_costs_the_same_for_1_and_20_approvers(api, db, employee, count_queries, aws):
    """With the notifications queue set (as deployed), delivery leaves the request: one notify_many for all."""
    counts = []
    for n in (1, 20):
        approvers = [make_user(db, access_level="employee") for _ in range(n)]
        pid = create(api, employee, approver_ids=[a.id for a in approvers])
        with count_queries() as counter:
            post(api, pid, "submit", employee)
        counts.append(counter.count)
        assert sorted(notices(db, pid, "proposal_submitted")) == sorted(a.id for a in approvers)
    assert counts[0] == counts[1], counts


def test_an_approver_who_may_not_approve_cannot_be_listed(api, db, employee):
    """Approving needs proposals:update: a user listed without it could neither approve nor be passed over, and the
    proposal would stay in review. Create and update refuse such a user (400 naming approver_ids), writing nothing."""
    from chalicelib.areas.proposals.models import Proposal

    able, viewer = make_user(db, access_level="employee"), make_user(db, access_level="employee")
    grant(db, viewer, "proposals", "view")
    made = api.post("/api/proposals", as_=employee, json={"title": "Refused", "approver_ids": [able.id, viewer.id]})
    assert made.status == 400, made
    assert made.json["details"] == [{"field": "approver_ids",
                                     "message": f"must be users who may approve (proposals:update) ({viewer.id})"}]
    assert db.scalar(select(Proposal.id).where(Proposal.title == "Refused")) is None
    pid = create(api, employee, approver_ids=[able.id])
    changed = api.put(f"/api/proposals/{pid}", as_=employee, json={"approver_ids": [able.id, viewer.id]})
    assert changed.status == 400 and changed.json["details"][0]["field"] == "approver_ids", changed
    assert api.get(f"/api/proposals/{pid}", as_=employee).json["proposal"]["approver_ids"] == [able.id]


def test_rounds_within_minutes_are_under_the_five_minute_rule(api, db, employee):
    """A submission, a request for changes and a resubmission within minutes: document 3's de-duplication (same
    user, type and resource within 5 minutes) holds for every notification, so each kind is told once."""
    approver = make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[approver.id])
    post(api, pid, "submit", employee)
    post(api, pid, "request-changes", approver, comments="Tighten the scope")
    post(api, pid, "submit", employee)
    post(api, pid, "request-changes", approver, comments="And the price")
    assert len(notices(db, pid, "proposal_submitted")[approver.id]) == 1
    assert len(notices(db, pid, "proposal_changes_requested")[employee.id]) == 1
