"""Session 31, round 2 (decided follow-ups of the invariants audit):
- feedback in a closed cycle is fixed as its reviews are: answering a request whose cycle is closed is 409 (nothing
  written), and such a request is neither in the reviewer's `pending_feedback` nor in their list of requests awaiting
  them; reopening the cycle gives both back;
- a closed cycle holding a completed review keeps its period (409 on a change of period_start or period_end; its name
  still changes; reopening lifts it);
- a leaver's own open review is no work for anyone: it is not counted in `pending_reviews`."""
from datetime import date

from sqlalchemy import func, select

from chalicelib.areas.performance.models import FeedbackRequest, FeedbackResponse, ReviewCycle
from tests.areas.performance.factories import make_cycle, make_review
from tests.factories import deactivate, make_squad, make_user

ALERTS = "/api/performance/alerts"
REQUESTS = "/api/performance/feedback/requests"
RESPONSES = "/api/performance/feedback/responses"


def _request(db, cycle, reviewer, subject=None, requester=None) -> str:
    request = FeedbackRequest(cycle_id=cycle.id, subject_id=(subject or make_user(db)).id, reviewer_id=reviewer.id,
                              requested_by=requester.id if requester else None, status="pending")
    db.add(request)
    db.flush()
    return request.id


def _closed(db, cycle_id):
    db.get(ReviewCycle, cycle_id).status = "closed"
    db.flush()


# ---------------------------------------------------------------- 1. feedback in a closed cycle

def test_a_request_of_a_closed_cycle_is_not_answered(api, db, exec_user, employee):
    cycle = make_cycle(db, status="closed")
    request_id = _request(db, cycle, employee, requester=exec_user)
    body = {"request_id": request_id, "organisation_rating": "achieving", "overall_comment": "Late"}
    answer = api.post(RESPONSES, as_=employee, json=body)
    assert answer.status == 409, (answer.status, answer.json)
    assert "closed" in answer.json["error"]
    db.expire_all()
    assert db.get(FeedbackRequest, request_id).status == "pending"
    assert db.scalar(select(func.count()).select_from(FeedbackResponse)
                     .where(FeedbackResponse.request_id == request_id)) == 0
    # the checks before it are unchanged: someone else is 403, an unknown request 400
    assert api.post(RESPONSES, as_=exec_user, json=body).status == 403
    # reopened, the request is answered as before
    assert api.put(f"/api/performance/cycles/{cycle.id}", as_=exec_user, json={"status": "open"}).status == 200
    answered = api.post(RESPONSES, as_=employee, json=body)
    assert answered.status == 201, answered.json
    db.expire_all()
    assert db.get(FeedbackRequest, request_id).status == "submitted"


def test_an_open_cycles_request_is_answered(api, db, employee):
    """Guard: the lock is the closed cycle's only (a draft cycle cannot hold a request; an open one is answered)."""
    request_id = _request(db, make_cycle(db), employee)
    answered = api.post(RESPONSES, as_=employee, json={"request_id": request_id, "performance_rating": "exceeding"})
    assert answered.status == 201, answered.json


def test_a_closed_cycles_requests_wait_on_nobody(api, db, employee):
    open_cycle, closed_cycle = make_cycle(db), make_cycle(db)
    live = _request(db, open_cycle, employee)
    held = _request(db, closed_cycle, employee)
    _closed(db, closed_cycle.id)
    assert api.get(ALERTS, as_=employee).json["pending_feedback"] == 1
    listed = api.get(REQUESTS, as_=employee)
    assert listed.status == 200
    assert [request["id"] for request in listed.json["requests"]] == [live]
    # reopened, it waits on the reviewer again
    db.get(ReviewCycle, closed_cycle.id).status = "open"
    db.flush()
    assert api.get(ALERTS, as_=employee).json["pending_feedback"] == 2
    assert {request["id"] for request in api.get(REQUESTS, as_=employee).json["requests"]} == {live, held}


# ---------------------------------------------------------------- 2. a closed cycle's period

def test_a_closed_cycle_with_a_completed_review_keeps_its_period(api, db, exec_user):
    cycle = make_cycle(db, status="closed", name="Q1")
    make_review(db, cycle=cycle, user=make_user(db), reviewer=exec_user, status="completed",
                completed_at=date(2026, 3, 30))
    path = f"/api/performance/cycles/{cycle.id}"
    for change in ({"period_end": "2026-04-30"}, {"period_start": "2025-12-01"}):
        answer = api.put(path, as_=exec_user, json={**change, "name": "Q1 renamed"})
        assert answer.status == 409, (change, answer.status, answer.json)
        assert "closed" in answer.json["error"]
    db.expire_all()
    stored = db.get(ReviewCycle, cycle.id)
    assert (stored.name, stored.period_start, stored.period_end) == ("Q1", date(2026, 1, 1), date(2026, 3, 31))
    # its name still changes, and the record sent back as read (same dates, same status) is no change of period
    renamed = api.put(path, as_=exec_user, json={"name": "Q1 2026", "period_start": "2026-01-01",
                                                 "period_end": "2026-03-31", "status": "closed"})
    assert renamed.status == 200, renamed.json
    assert renamed.json["cycle"]["name"] == "Q1 2026"
    # reopening lifts it
    assert api.put(path, as_=exec_user, json={"status": "open"}).status == 200
    moved = api.put(path, as_=exec_user, json={"period_end": "2026-04-30"})
    assert moved.status == 200, moved.json
    assert moved.json["cycle"]["period_end"] == "2026-04-30"


def test_a_closed_cycles_period_changes_without_a_completed_review(api, db, exec_user):
    """Guard: without a completed review (none, or only unfinished ones) a closed cycle's period is corrected, and a
    cycle reopened in the same write is open after it, as reopening first would leave it."""
    cycle = make_cycle(db, status="closed")
    make_review(db, cycle=cycle, user=make_user(db), reviewer=exec_user, status="in_review")
    path = f"/api/performance/cycles/{cycle.id}"
    answer = api.put(path, as_=exec_user, json={"period_end": "2026-04-30"})
    assert answer.status == 200, answer.json
    held = make_cycle(db, status="closed")
    make_review(db, cycle=held, user=make_user(db), reviewer=exec_user, status="completed")
    reopened = api.put(f"/api/performance/cycles/{held.id}", as_=exec_user,
                       json={"status": "open", "period_end": "2026-04-30"})
    assert reopened.status == 200, reopened.json
    assert reopened.json["cycle"]["period_end"] == "2026-04-30"


# ---------------------------------------------------------------- 3. a leaver's own review

def test_a_leavers_open_review_is_not_pending(api, db):
    reviewer = make_user(db, access_level="employee")
    cycle = make_cycle(db)
    leaver, stayer = make_user(db), make_user(db)
    make_review(db, cycle=cycle, user=leaver, reviewer=reviewer, status="in_review")
    make_review(db, cycle=cycle, user=stayer, reviewer=reviewer, status="in_review")
    assert api.get(ALERTS, as_=reviewer).json["pending_reviews"] == 2
    deactivate(db, leaver)
    assert api.get(ALERTS, as_=reviewer).json["pending_reviews"] == 1


def test_a_managed_leavers_review_is_not_pending_for_the_manager(api, db):
    """The manager's share (a managed person's review whose reviewer left or is the person: sessions 25, 29) leaves
    out a review whose person left too."""
    manager = make_user(db, access_level="manager")
    squad = make_squad(db, manager_id=manager.id)
    cycle = make_cycle(db)
    leaver = make_user(db, manager_id=manager.id)
    member = make_user(db, squad_id=squad.id)
    make_review(db, cycle=cycle, user=leaver, reviewer=leaver, status="in_review")
    make_review(db, cycle=cycle, user=member, reviewer=member, status="in_review")
    assert api.get(ALERTS, as_=manager).json["pending_reviews"] == 2
    deactivate(db, leaver)
    assert api.get(ALERTS, as_=manager).json["pending_reviews"] == 1
