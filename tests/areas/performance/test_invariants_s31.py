"""Session 31 (invariants audit): a closed review cycle's reviews are fixed. Reviews are created in an open cycle
only, and a closed cycle is reopened (`closed` -> `open`) to change what it holds: a review of a closed cycle is
not rated, completed, moved or given goal outcomes (409 naming the state, nothing written), and the alerts do not
count it as work waiting; reading it, and reopening the cycle to finish it, still work."""
from datetime import date

from sqlalchemy import select

from chalicelib.areas.performance.models import Review, ReviewGoal, ReviewKpiRating
from tests.areas.performance.factories import make_cycle, make_review
from tests.factories import make_user


def _review_state(db, review_id):
    db.expire_all()
    return db.execute(select(Review.status, Review.reviewer_notes, Review.kpi_passed)
                      .where(Review.id == review_id)).one()


def test_a_review_of_a_closed_cycle_is_not_changed(api, db, exec_user):
    cycle = make_cycle(db, status="closed")
    person = make_user(db)
    review = make_review(db, cycle=cycle, user=person, reviewer=exec_user, status="ready_for_review",
                         kpis=[(None, None)])
    kpi = db.scalar(select(ReviewKpiRating.id).where(ReviewKpiRating.review_id == review.id))
    path = f"/api/performance/reviews/{review.id}"
    answer = api.put(path, as_=exec_user, json={"status": "completed", "reviewer_notes": "late",
                                                "kpi_ratings": [{"id": kpi, "rating": "exceeding"}]})
    assert answer.status == 409, (answer.status, answer.json)
    assert "closed" in answer.json["error"]
    assert tuple(_review_state(db, review.id)) == ("ready_for_review", None, None)
    assert db.scalar(select(ReviewKpiRating.rating).where(ReviewKpiRating.id == kpi)) is None
    # the reviewed person's self-assessment is fixed too
    assert api.put(path, as_=person, json={"strengths": "late"}).status == 409
    assert api.get(path, as_=exec_user).status == 200  # reading is unchanged
    # reopened, the review is finished as before
    reopened = api.put(f"/api/performance/cycles/{cycle.id}", as_=exec_user, json={"status": "open"})
    assert reopened.status == 200
    done = api.put(path, as_=exec_user, json={"status": "completed", "kpi_ratings": [{"id": kpi, "rating": "exceeding"}]})
    assert done.status == 200, done.json
    assert done.json["review"]["status"] == "completed"


def test_goal_outcomes_are_not_recorded_in_a_closed_cycle(api, db, exec_user, employee):
    q1 = make_cycle(db, name="Q1", period_start=date(2026, 1, 1), period_end=date(2026, 3, 31))
    q2 = make_cycle(db, name="Q2", period_start=date(2026, 4, 1), period_end=date(2026, 6, 30), status="closed")
    earlier = make_review(db, cycle=q1, user=employee, reviewer=exec_user, status="completed",
                          goals=[("Ship A", None)], completed_at=date(2026, 4, 2))
    current = make_review(db, cycle=q2, user=employee, reviewer=exec_user, status="in_review")
    goal = db.scalar(select(ReviewGoal.id).where(ReviewGoal.review_id == earlier.id))
    answer = api.put(f"/api/performance/reviews/{current.id}/previous-goals", as_=exec_user,
                     json={"outcomes": [{"goal_id": goal, "status": "completed"}]})
    assert answer.status == 409, (answer.status, answer.json)
    db.expire_all()
    assert db.scalar(select(ReviewGoal.status).where(ReviewGoal.id == goal)) is None


def test_alerts_leave_out_the_reviews_of_a_closed_cycle(api, db, employee):
    reviewer = make_user(db, access_level="manager")
    closed = make_cycle(db, status="closed")
    make_review(db, cycle=closed, user=employee, reviewer=reviewer, status="in_review")
    other = make_user(db)
    make_review(db, cycle=make_cycle(db, status="closed"), user=other, reviewer=other, status="self_assessment")
    assert api.get("/api/performance/alerts", as_=reviewer).json["pending_reviews"] == 0
    assert api.get("/api/performance/alerts", as_=other).json["self_assessments"] == 0
    # an open cycle's review still counts
    make_review(db, cycle=make_cycle(db), user=make_user(db), reviewer=reviewer, status="in_review")
    assert api.get("/api/performance/alerts", as_=reviewer).json["pending_reviews"] == 1


def test_the_reviewed_person_does_not_take_back_the_reviewers_step(api, db, employee):
    """`ready_for_review` is the reviewer side's step: the reviewed person, who moves a review up to `in_review` only,
    does not move it back from there (403, the review left as the reviewer left it); the reviewer side still does."""
    reviewer = make_user(db, access_level="manager")
    review = make_review(db, cycle=make_cycle(db), user=employee, reviewer=reviewer, status="ready_for_review")
    path = f"/api/performance/reviews/{review.id}"
    answer = api.put(path, as_=employee, json={"status": "in_review"})
    assert answer.status == 403, (answer.status, answer.json)
    assert _review_state(db, review.id)[0] == "ready_for_review"
    # the same status sent back (a save-back) is no move
    assert api.put(path, as_=employee, json={"status": "ready_for_review", "strengths": "x"}).status == 200
    back = api.put(path, as_=reviewer, json={"status": "in_review"})
    assert back.status == 200 and back.json["review"]["status"] == "in_review"
