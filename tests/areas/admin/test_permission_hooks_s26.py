"""Session 26 (audit "what an admin's permission change leaves behind"): a permission change moves work as a
(de)activation does. Whatever the admin write (a user's override, their access level's matrix cell, a change of
their access level), the admin area compares each affected user's effective level of a tool before and after and
hands the users who crossed a line to the area that owns the work:
- a feedback reviewer whose performance level dropped below view can no longer answer: each requester is told once
  (`feedback_request_cancelled`, performance's `reviewers_lost_access`), as a deactivation tells them;
- a listed approver whose proposals level rose to update or above is told of the proposals waiting on them in review
  (`proposal_submitted`, proposals' `approvers_regained`), as a reactivation tells them.
One grouped read and notify_many's statements whatever the number of users (docs/decisions/admin.md, session 26)."""
from sqlalchemy import select

from chalicelib.areas.performance.models import FeedbackRequest
from chalicelib.core.notify import Notification
from tests.areas.performance.factories import ask_feedback, make_cycle
from tests.areas.proposals.factories import create
from tests.areas.proposals.test_approval_notices import age_notices, notices, post
from tests.factories import grant, make_user, override_permissions, save_matrix, set_access_level

CANCELLED = "feedback_request_cancelled"
SUBMITTED_TITLE = "Proposal to approve: Website rebuild"


def _told(db, user, type=CANCELLED):
    db.expire_all()
    return db.execute(select(Notification.resource_id, Notification.title, Notification.action_url)
                      .where(Notification.user_id == user.id, Notification.type == type)
                      .order_by(Notification.created_at, Notification.id)).all()


def _status(db, request_id):
    db.expire_all()
    return db.scalar(select(FeedbackRequest.status).where(FeedbackRequest.id == request_id))


def _asked(api, db, reviewer_level="employee"):
    """A manager asked a reviewer for feedback about one of the manager's reports: (asker, subject, reviewer,
    cycle, request id)."""
    cycle = make_cycle(db)
    asker = make_user(db, access_level="manager", name="Mona Manager")
    subject = make_user(db, manager_id=asker.id, name="Sam Subject")
    reviewer = make_user(db, access_level=reviewer_level, name="Rita Reviewer")
    return asker, subject, reviewer, cycle, ask_feedback(api, asker, cycle, subject, reviewer)


# ---------------------------------------------------------------- performance: a reviewer loses performance:view

def test_reviewer_lowered_by_override_the_requester_is_told(api, db, exec_user):
    asker, _, reviewer, cycle, rid = _asked(api, db)
    override_permissions(api, exec_user, reviewer, performance="none")
    answer = api.post("/api/performance/feedback/responses", as_=reviewer, json={"request_id": rid, "overall_comment": "x"})
    assert answer.status == 403  # they can no longer answer
    title = f"Rita Reviewer can no longer give the feedback you asked about Sam Subject ({cycle.name})"
    assert _told(db, asker) == [(rid, title, "/performance/feedback")]
    assert _status(db, rid) == "pending"  # the statuses are pending and submitted: nothing is cancelled
    assert _told(db, reviewer) == [] and _told(db, exec_user) == []  # the admin, the actor, is never told


def test_reviewer_kept_at_view_or_raised_tells_nobody(api, db, exec_user):
    asker, _, reviewer, _, _ = _asked(api, db)
    override_permissions(api, exec_user, reviewer, performance="view")  # update -> view: still answers
    override_permissions(api, exec_user, reviewer, tasks="none", leave="view")  # other tools
    override_permissions(api, exec_user, reviewer, performance="manage")
    assert _told(db, asker) == []


def test_override_removed_the_level_falls_back_to_a_matrix_cell_below_view(api, db, exec_user):
    """The effective level before and after is compared, not the override alone: an override removed (null) can
    lower the user too."""
    save_matrix(api, exec_user, lead={"performance": "none"})
    cycle = make_cycle(db)
    asker = make_user(db, access_level="manager")
    reviewer = make_user(db, access_level="lead", name="Lee Lead")
    grant(db, reviewer, "performance", "update")  # the lead answers through their override
    rid = ask_feedback(api, asker, cycle, make_user(db, manager_id=asker.id), reviewer)
    override_permissions(api, exec_user, reviewer, performance=None)  # back to the lead cell: none
    assert [row[0] for row in _told(db, asker)] == [rid]
    assert _told(db, asker)[0][1].startswith("Lee Lead can no longer give the feedback")


def test_reviewer_lowered_by_their_levels_matrix_cell(api, db, exec_user):
    asker, _, _, _, rid = _asked(api, db, reviewer_level="lead")
    kept = make_user(db, access_level="lead", name="Kim Kept")
    grant(db, kept, "performance", "view")  # an override of the tool: the cell does not move them
    other_asker = make_user(db, access_level="manager")
    kept_rid = ask_feedback(api, other_asker, make_cycle(db), make_user(db, manager_id=other_asker.id), kept)
    save_matrix(api, exec_user, lead={"performance": "none", "tasks": "update"})
    assert [row[0] for row in _told(db, asker)] == [rid]
    assert _told(db, other_asker) == []
    assert _status(db, kept_rid) == "pending"


def test_reviewer_lowered_by_a_change_of_access_level(api, db, exec_user):
    save_matrix(api, exec_user, lead={"performance": "none"})
    asker, _, reviewer, _, rid = _asked(api, db, reviewer_level="employee")
    set_access_level(api, exec_user, reviewer, "lead")
    assert [row[0] for row in _told(db, asker)] == [rid]


def test_many_requests_and_reviewers_one_notice_per_requester(api, db, exec_user):
    cycle = make_cycle(db)
    asker = make_user(db, access_level="manager")
    reviewers = [make_user(db, access_level="lead") for _ in range(2)]
    subjects = [make_user(db, manager_id=asker.id) for _ in range(2)]
    rids = {ask_feedback(api, asker, cycle, subject, reviewer) for subject in subjects for reviewer in reviewers}
    save_matrix(api, exec_user, lead={"performance": "none"})
    told = _told(db, asker)
    assert len(told) == 1 and told[0][0] in rids
    assert told[0][1] == "2 colleagues can no longer give the feedback you asked for (4 requests)"


def test_a_requester_without_performance_view_learns_no_names(api, db, exec_user):
    asker, _, reviewer, _, rid = _asked(api, db)
    grant(db, asker, "performance", "none")  # asked, then lost the tool themselves
    override_permissions(api, exec_user, reviewer, performance="none")
    assert _told(db, asker) == [(rid, "A colleague you asked for feedback can no longer give it", None)]


def test_an_inactive_reviewer_lowered_tells_nobody_again(api, db, exec_user):
    asker, _, reviewer, _, _ = _asked(api, db)
    assert api.put(f"/api/admin/users/{reviewer.id}", as_=exec_user, json={"is_active": False}).status == 200
    assert len(_told(db, asker)) == 1  # the deactivation told them
    override_permissions(api, exec_user, reviewer, performance="none")
    assert len(_told(db, asker)) == 1


def test_the_same_statements_for_one_and_many_reviewers_lowered(api, db, exec_user, driver_statements, aws):
    counts = []
    for level, size in (("lead", 1), ("manager", 6)):
        cycle = make_cycle(db)
        askers = [make_user(db, access_level="head") for _ in range(size)]
        for asker in askers:
            ask_feedback(api, asker, cycle, make_user(db, manager_id=asker.id), make_user(db, access_level=level))
        statements, answer = driver_statements(  # as the e-mail: no reload of the test's expired user counted
            lambda level=level, email=exec_user.email: api.put(
                "/api/admin/permissions", as_=email, json={"matrix": {level: {"performance": "none"}}}))
        assert answer.status == 200, answer.json
        counts.append(len(statements))
        assert all(len(_told(db, asker)) == 1 for asker in askers)
    assert counts[0] == counts[1], counts


# ---------------------------------------------------------------- proposals: an approver's proposals:update given back

def test_approver_restored_by_override_is_told(api, db, exec_user, employee):
    approver = make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[approver.id])
    override_permissions(api, exec_user, approver, proposals="none")
    post(api, pid, "submit", employee)
    assert notices(db, pid, "proposal_submitted") == {}  # decided: not told while lowered
    override_permissions(api, exec_user, approver, proposals=None)
    assert api.get(f"/api/proposals/{pid}", as_=approver).status == 200
    assert notices(db, pid, "proposal_submitted") == {
        approver.id: [(SUBMITTED_TITLE, f"/proposals/{pid}", "proposal", pid, exec_user.id)]}


def test_approver_given_view_only_is_not_told(api, db, exec_user, employee):
    """Approving needs proposals:update: one who may only read is not asked."""
    approver = make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[approver.id])
    override_permissions(api, exec_user, approver, proposals="none")
    post(api, pid, "submit", employee)
    override_permissions(api, exec_user, approver, proposals="view")
    assert notices(db, pid, "proposal_submitted") == {}
    override_permissions(api, exec_user, approver, proposals="update")
    assert list(notices(db, pid, "proposal_submitted")) == [approver.id]


def test_approver_restored_by_their_levels_matrix_cell(api, db, exec_user, employee):
    approver, kept = make_user(db, access_level="manager"), make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[approver.id, kept.id])
    grant(db, kept, "proposals", "none")  # an override of the tool: the cell does not move them
    save_matrix(api, exec_user, manager={"proposals": "view"})
    post(api, pid, "submit", employee)  # a reader is told of the submit (the submit's rule)
    age_notices(db, pid)
    before = notices(db, pid, "proposal_submitted")
    save_matrix(api, exec_user, manager={"proposals": "update"})
    after = notices(db, pid, "proposal_submitted")
    assert len(after[approver.id]) == len(before[approver.id]) + 1
    assert kept.id not in after


def test_approver_restored_by_a_change_of_access_level(api, db, exec_user, employee):
    approver = make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[approver.id])
    save_matrix(api, exec_user, lead={"proposals": "none"})
    set_access_level(api, exec_user, approver, "lead")
    post(api, pid, "submit", employee)
    assert notices(db, pid, "proposal_submitted") == {}
    set_access_level(api, exec_user, approver, "manager")
    assert list(notices(db, pid, "proposal_submitted")) == [approver.id]


def test_the_same_statements_for_one_and_many_approvers_restored(api, db, exec_user, employee, driver_statements, aws):
    counts = []
    for level, size in (("lead", 1), ("manager", 5)):
        approvers = [make_user(db, access_level=level) for _ in range(size)]
        pids = [create(api, employee, approver_ids=[approver.id]) for approver in approvers]
        save_matrix(api, exec_user, **{level: {"proposals": "none"}})
        for pid in pids:
            post(api, pid, "submit", employee)
        statements, answer = driver_statements(  # as the e-mail: no reload of the test's expired user counted
            lambda level=level, email=exec_user.email: api.put(
                "/api/admin/permissions", as_=email, json={"matrix": {level: {"proposals": "update"}}}))
        assert answer.status == 200, answer.json
        counts.append(len(statements))
        assert all(list(notices(db, pid, "proposal_submitted")) == [approver.id]
                   for pid, approver in zip(pids, approvers))
    assert counts[0] == counts[1], counts
