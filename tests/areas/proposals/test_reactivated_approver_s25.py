"""Session 25 (audit "returning users"): a listed approver deactivated while their proposal went to review was not
told of the submit (notify skips inactive users), and nothing told them once reactivated: the proposal sat in
`review` waiting on them. `service.user_reactivated(ctx, user_id)` (called by the admin user update when a user is
made active again) sends `proposal_submitted` for each proposal in review that lists them with no decision of
theirs, unless they own it, and only while they may read it; a fixed number of statements whatever the number of
proposals (docs/decisions/proposals.md, session 25)."""
from chalicelib.areas.proposals import service
from chalicelib.areas.proposals.models import ProposalApproval
from chalicelib.core.context import job_context
from chalicelib.core.models import User
from tests.areas.proposals.factories import create
from tests.areas.proposals.test_approval_notices import age_notices, notices, post
from tests.factories import grant, make_user

TITLE = "Proposal to approve: Website rebuild"


def _set_active(db, user, active: bool) -> None:
    db.get(User, user.id).is_active = active
    db.flush()


def _reactivated(db, user) -> None:
    """The user made active again, then the proposals area's call, as the admin update makes it."""
    _set_active(db, user, True)
    with job_context() as ctx:
        service.user_reactivated(ctx, user.id)
    db.expire_all()


def _submitted_while_away(api, db, owner, approver, **body) -> str:
    pid = create(api, owner, approver_ids=[approver.id], **body)
    _set_active(db, approver, False)
    post(api, pid, "submit", owner)
    assert notices(db, pid, "proposal_submitted") == {}  # an inactive user is told nothing
    return pid


# ---------------------------------------------------------------- through the admin route

def test_reactivated_approver_is_told_of_the_proposal_waiting_on_them(api, db, exec_user, employee):
    """Through PUT /api/admin/users/:id (the admin service calls user_reactivated)."""
    approver = make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[approver.id])
    assert api.put(f"/api/admin/users/{approver.id}", as_=exec_user, json={"is_active": False}).status == 200
    post(api, pid, "submit", employee)
    assert notices(db, pid, "proposal_submitted") == {}
    assert api.put(f"/api/admin/users/{approver.id}", as_=exec_user, json={"is_active": True}).status == 200
    assert api.get(f"/api/proposals/{pid}", as_=employee).json["proposal"]["status"] == "review"
    told = notices(db, pid, "proposal_submitted")
    assert list(told) == [approver.id], "the returning approver is never told"
    assert told[approver.id] == [(TITLE, f"/proposals/{pid}", "proposal", pid, exec_user.id)]
    assert api.get(f"/api/proposals/{pid}", as_=approver).status == 200  # the link opens for them


# ---------------------------------------------------------------- the function itself

def test_the_returning_approver_is_told_as_a_submit_tells(api, db, employee):
    approver = make_user(db, access_level="manager")
    pid = _submitted_while_away(api, db, employee, approver)
    _reactivated(db, approver)
    assert notices(db, pid, "proposal_submitted") == {approver.id: [(TITLE, f"/proposals/{pid}", "proposal", pid,
                                                                      None)]}


def test_only_review_proposals_with_no_decision_of_theirs_are_told(api, db, employee):
    approver, other = make_user(db, access_level="manager"), make_user(db, access_level="manager")
    waiting = create(api, employee, approver_ids=[approver.id, other.id])
    decided = create(api, employee, approver_ids=[approver.id, other.id])
    draft = create(api, employee, approver_ids=[approver.id])
    post(api, decided, "submit", employee)
    post(api, decided, "approve", approver)
    _set_active(db, approver, False)
    post(api, waiting, "submit", employee)
    for pid in (waiting, decided):
        age_notices(db, pid)  # past notify's 5-minute de-duplication: a repeat would be written
    _reactivated(db, approver)
    assert list(notices(db, waiting, "proposal_submitted")) == [other.id, approver.id]
    assert approver.id in notices(db, decided, "proposal_submitted")  # the submit's own notice, while active
    assert len(notices(db, decided, "proposal_submitted")[approver.id]) == 1  # nothing more: they decided
    assert notices(db, draft, "proposal_submitted") == {}


def test_changes_requested_is_not_waiting_on_them(api, db, employee):
    approver = make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[approver.id])
    post(api, pid, "submit", employee)
    post(api, pid, "request-changes", approver, comments="Lower the price")
    age_notices(db, pid)
    before = notices(db, pid, "proposal_submitted")
    _set_active(db, approver, False)
    _reactivated(db, approver)
    assert notices(db, pid, "proposal_submitted") == before


def test_an_owner_listed_before_the_rule_is_not_asked(api, db, exec_user):
    owner = make_user(db, access_level="manager")
    pid = create(api, owner, approver_ids=[exec_user.id])
    db.add(ProposalApproval(proposal_id=pid, user_id=owner.id, listed=True))  # a listing made before the rule
    db.flush()
    _set_active(db, owner, False)
    post(api, pid, "submit", exec_user)
    _reactivated(db, owner)
    assert owner.id not in notices(db, pid, "proposal_submitted")


def test_an_approver_who_may_not_read_it_is_not_told(api, db, employee):
    approver = make_user(db, access_level="manager")
    pid = _submitted_while_away(api, db, employee, approver)
    grant(db, db.get(User, approver.id), "proposals", "none")
    _reactivated(db, approver)
    assert notices(db, pid, "proposal_submitted") == {}


def test_still_inactive_is_told_nothing(api, db, employee):
    approver = make_user(db, access_level="manager")
    pid = _submitted_while_away(api, db, employee, approver)
    with job_context() as ctx:
        service.user_reactivated(ctx, approver.id)
    assert notices(db, pid, "proposal_submitted") == {}


def test_the_same_statements_for_3_and_30_proposals(api, db, driver_statements, aws):
    """`aws`: the deliveries go to the (moto) queue after commit, as deployed, not inline."""
    counts = []
    for size in (3, 30):
        owner, approver = make_user(db, access_level="employee"), make_user(db, access_level="manager")
        pids = [create(api, owner, approver_ids=[approver.id]) for _ in range(size)]
        _set_active(db, approver, False)
        for pid in pids:
            post(api, pid, "submit", owner)
        _set_active(db, approver, True)

        def run(approver=approver):
            with job_context() as ctx:
                service.user_reactivated(ctx, approver.id)

        statements, _ = driver_statements(run)
        counts.append(len(statements))
        db.expire_all()
        assert all(list(notices(db, pid, "proposal_submitted")) == [approver.id] for pid in pids)
    assert counts[0] == counts[1], counts
