"""Session 24: an approver added by PUT while the proposal is in `review` is told `proposal_submitted`, as the listed
ones were at submit (the proposal waits for their approval); the ones listed before are not told again, and the
submit's filters apply (not the caller, not the owner, only who may read it). docs/decisions/proposals.md."""
from tests.areas.proposals.factories import create
from tests.areas.proposals.test_approval_notices import notices, post
from tests.factories import make_user


def test_approver_added_while_in_review_is_told(api, db, employee):
    first, added = make_user(db, access_level="manager"), make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[first.id])
    post(api, pid, "submit", employee)
    assert set(notices(db, pid, "proposal_submitted")) == {first.id}
    answer = api.put(f"/api/proposals/{pid}", as_=employee, json={"approver_ids": [first.id, added.id]})
    assert answer.status == 200, answer
    told = notices(db, pid, "proposal_submitted")
    assert set(told) == {first.id, added.id} and len(told[first.id]) == 1  # the one listed before: not again
    assert told[added.id] == [("Proposal to approve: Website rebuild", f"/proposals/{pid}", "proposal", pid,
                               employee.id)]
    post(api, pid, "approve", first)
    assert api.get(f"/api/proposals/{pid}", as_=employee).json["proposal"]["status"] == "review"  # waits for `added`


def test_approvers_listed_outside_review_or_unchanged_are_not_told(api, db, exec_user, employee):
    first, added, later = (make_user(db, access_level="manager") for _ in range(3))
    pid = create(api, employee, approver_ids=[first.id])
    answer = api.put(f"/api/proposals/{pid}", as_=employee, json={"approver_ids": [first.id, added.id]})
    assert answer.status == 200, answer
    assert notices(db, pid, "proposal_submitted") == {}  # a draft: listing is not submitting
    post(api, pid, "submit", employee)
    assert set(notices(db, pid, "proposal_submitted")) == {first.id, added.id}
    same = api.put(f"/api/proposals/{pid}", as_=employee, json={"approver_ids": [added.id, first.id]})
    assert same.status == 200, same
    told = notices(db, pid, "proposal_submitted")
    assert [len(v) for v in told.values()] == [1, 1]  # the same list: nobody told again
    # added by someone else (an executive): the added one is told, the caller never is
    answer = api.put(f"/api/proposals/{pid}", as_=exec_user,
                     json={"approver_ids": [first.id, added.id, later.id, exec_user.id]})
    assert answer.status == 200, answer
    told = notices(db, pid, "proposal_submitted")
    assert set(told) == {first.id, added.id, later.id} and told[later.id][0][4] == exec_user.id
