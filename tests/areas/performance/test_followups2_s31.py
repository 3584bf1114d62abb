"""Session 31, round 2 (decided by the lead, second set):
- a closed cycle holding a completed review keeps its `type` as it keeps its period (409; the type decides how
  earlier reviews are picked: an annual review reads the quarterly ones of its period); reopening lifts it;
- feedback requests about a person who has been deactivated wait on nobody: they are neither in the reviewer's
  `pending_feedback` nor in their list of requests awaiting them; a reactivated person's requests count again."""
from datetime import date

from chalicelib.areas.performance.models import FeedbackRequest, ReviewCycle
from chalicelib.core.models import User
from tests.areas.performance.factories import make_cycle, make_review
from tests.factories import deactivate, make_user

ALERTS = "/api/performance/alerts"
REQUESTS = "/api/performance/feedback/requests"
RESPONSES = "/api/performance/feedback/responses"


def _request(db, cycle, reviewer, subject) -> str:
    request = FeedbackRequest(cycle_id=cycle.id, subject_id=subject.id, reviewer_id=reviewer.id, status="pending")
    db.add(request)
    db.flush()
    return request.id


# ---------------------------------------------------------------- 1. a closed cycle's type

def test_a_closed_cycle_with_a_completed_review_keeps_its_type(api, db, exec_user):
    cycle = make_cycle(db, status="closed", name="Q1")
    make_review(db, cycle=cycle, user=make_user(db), reviewer=exec_user, status="completed",
                completed_at=date(2026, 3, 30))
    path = f"/api/performance/cycles/{cycle.id}"
    answer = api.put(path, as_=exec_user, json={"type": "annual", "name": "Q1 renamed"})
    assert answer.status == 409, (answer.status, answer.json)
    assert "closed" in answer.json["error"]
    db.expire_all()
    stored = db.get(ReviewCycle, cycle.id)
    assert (stored.type, stored.name) == ("quarterly", "Q1")
    # the record sent back as read (same type, same status) is no change
    same = api.put(path, as_=exec_user, json={"type": "quarterly", "name": "Q1 2026", "status": "closed"})
    assert same.status == 200, same.json
    # reopening lifts it, in an earlier write or in the same one
    reopened = api.put(path, as_=exec_user, json={"status": "open", "type": "annual"})
    assert reopened.status == 200, reopened.json
    assert (reopened.json["cycle"]["type"], reopened.json["cycle"]["status"]) == ("annual", "open")


def test_a_closed_cycles_type_changes_without_a_completed_review(api, db, exec_user):
    """Guard: a closed cycle holding no completed review is still corrected, and an open one always."""
    cycle = make_cycle(db, status="closed")
    make_review(db, cycle=cycle, user=make_user(db), reviewer=exec_user, status="in_review")
    answer = api.put(f"/api/performance/cycles/{cycle.id}", as_=exec_user, json={"type": "annual"})
    assert answer.status == 200, answer.json
    assert answer.json["cycle"]["type"] == "annual"
    live = make_cycle(db)
    make_review(db, cycle=live, user=make_user(db), reviewer=exec_user, status="completed")
    assert api.put(f"/api/performance/cycles/{live.id}", as_=exec_user, json={"type": "annual"}).status == 200


# ---------------------------------------------------------------- 2. feedback about a leaver

def test_feedback_about_a_leaver_waits_on_nobody(api, db, employee):
    cycle = make_cycle(db)
    leaver, stayer = make_user(db), make_user(db)
    about_leaver = _request(db, cycle, employee, leaver)
    about_stayer = _request(db, cycle, employee, stayer)
    assert api.get(ALERTS, as_=employee).json["pending_feedback"] == 2
    deactivate(db, leaver)
    assert api.get(ALERTS, as_=employee).json["pending_feedback"] == 1
    listed = api.get(REQUESTS, as_=employee)
    assert listed.status == 200
    assert [request["id"] for request in listed.json["requests"]] == [about_stayer]
    # reactivated, the request waits on the reviewer again
    db.get(User, leaver.id).is_active = True
    db.flush()
    assert api.get(ALERTS, as_=employee).json["pending_feedback"] == 2
    assert {request["id"] for request in api.get(REQUESTS, as_=employee).json["requests"]} == {about_leaver,
                                                                                                about_stayer}


def test_a_leaving_reviewers_requests_are_unchanged_for_others(api, db, employee):
    """Guard: only the subject's leaving hides a request; a request about an active person stays listed and
    answerable, and another reviewer's requests about the same active person are theirs still."""
    cycle = make_cycle(db)
    subject, other_reviewer = make_user(db), make_user(db)
    mine = _request(db, cycle, employee, subject)
    _request(db, cycle, other_reviewer, subject)
    deactivate(db, other_reviewer)
    assert api.get(ALERTS, as_=employee).json["pending_feedback"] == 1
    assert [request["id"] for request in api.get(REQUESTS, as_=employee).json["requests"]] == [mine]
    answered = api.post(RESPONSES, as_=employee, json={"request_id": mine, "performance_rating": "exceeding"})
    assert answered.status == 201, answered.json
