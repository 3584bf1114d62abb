"""Session 25: PUT /reviews/{id}/previous-goals takes only goals of the reviews the detail's `previous_reviews`
names for this review (the person's earlier completed reviews); a goal of a later review, an unfinished one or
any other review of the person is a 400 and nothing is written."""
from datetime import date

from sqlalchemy import select

from chalicelib.areas.performance.models import ReviewGoal
from tests.areas.performance.factories import make_cycle, make_review
from tests.factories import make_user


def _goal(db, review):
    return db.scalar(select(ReviewGoal.id).where(ReviewGoal.review_id == review.id))


def _status(db, goal_id):
    db.expire_all()
    return db.scalar(select(ReviewGoal.status).where(ReviewGoal.id == goal_id))


def test_outcomes_of_a_later_completed_review_are_refused(api, db, exec_user, employee):
    q1 = make_cycle(db, name="Q1", period_start=date(2026, 1, 1), period_end=date(2026, 3, 31))
    q2 = make_cycle(db, name="Q2", period_start=date(2026, 4, 1), period_end=date(2026, 6, 30))
    colleague = make_user(db)  # an employee-level reviewer of the old review
    old = make_review(db, cycle=q1, user=employee, reviewer=colleague, status="in_review")
    later = make_review(db, cycle=q2, user=employee, reviewer=exec_user, status="completed",
                        goals=[("Ship A", None)], kpi_pass_count=1, kpi_total_count=1, kpi_passed=True,
                        completed_at=date(2026, 7, 2))
    goal = _goal(db, later)
    answer = api.put(f"/api/performance/reviews/{old.id}/previous-goals", as_=colleague,
                     json={"outcomes": [{"goal_id": goal, "status": "not_completed"}]})
    assert answer.status == 400, (answer.status, answer.json)
    assert answer.json["details"][0]["field"] == "outcomes.0.goal_id"
    assert _status(db, goal) is None
    history = api.get(f"/api/performance/reviews/history/{employee.id}", as_=exec_user).json["history"]
    assert history[0]["goals_not_completed"] == 0


def test_only_goals_of_the_previous_reviews_are_taken(api, db, exec_user, employee):
    q1 = make_cycle(db, name="Q1", period_start=date(2026, 1, 1), period_end=date(2026, 3, 31))
    q2 = make_cycle(db, name="Q2", period_start=date(2026, 4, 1), period_end=date(2026, 6, 30))
    q3 = make_cycle(db, name="Q3", period_start=date(2026, 7, 1), period_end=date(2026, 9, 30))
    q4 = make_cycle(db, name="Q4", period_start=date(2026, 10, 1), period_end=date(2026, 12, 31))
    oldest = make_review(db, cycle=q1, user=employee, reviewer=exec_user, status="completed",
                         goals=[("Old", None)], completed_at=date(2026, 4, 2))
    unfinished = make_review(db, cycle=q2, user=employee, reviewer=exec_user, status="in_review",
                             goals=[("Open", None)])
    earlier = make_review(db, cycle=q3, user=employee, reviewer=exec_user, status="completed",
                          goals=[("Ship A", None)], completed_at=date(2026, 10, 2))
    current = make_review(db, cycle=q4, user=employee, reviewer=exec_user)
    path = f"/api/performance/reviews/{current.id}"
    previous = api.get(path, as_=exec_user).json["previous_reviews"]
    assert [p["review"]["id"] for p in previous] == [earlier.id]
    for other in (oldest, unfinished):  # not what previous_reviews names for this review
        goal = _goal(db, other)
        bad = api.put(f"{path}/previous-goals", as_=exec_user,
                      json={"outcomes": [{"goal_id": goal, "status": "completed"}]})
        assert bad.status == 400, (bad.status, bad.json)
        assert _status(db, goal) is None
    goal = _goal(db, earlier)
    recorded = api.put(f"{path}/previous-goals", as_=exec_user,
                       json={"outcomes": [{"goal_id": goal, "status": "completed"}]})
    assert recorded.status == 200 and recorded.json == {"ok": True}, recorded.json
    assert _status(db, goal) == "completed"


def test_an_annual_review_takes_the_goals_of_its_quarters(api, db, exec_user, employee):
    q1 = make_cycle(db, name="Q1", period_start=date(2026, 1, 1), period_end=date(2026, 3, 31))
    q2 = make_cycle(db, name="Q2", period_start=date(2026, 4, 1), period_end=date(2026, 6, 30))
    year = make_cycle(db, type="annual", name="FY26", period_start=date(2026, 1, 1), period_end=date(2026, 12, 31))
    next_year = make_cycle(db, name="Q1 27", period_start=date(2027, 1, 1), period_end=date(2027, 3, 31))
    first = make_review(db, cycle=q1, user=employee, reviewer=exec_user, status="completed",
                        goals=[("A", None)], completed_at=date(2026, 4, 2))
    second = make_review(db, cycle=q2, user=employee, reviewer=exec_user, status="completed",
                         goals=[("B", None)], completed_at=date(2026, 7, 2))
    later = make_review(db, cycle=next_year, user=employee, reviewer=exec_user, status="completed",
                        goals=[("C", None)], completed_at=date(2027, 4, 2))
    annual = make_review(db, cycle=year, user=employee, reviewer=exec_user)
    path = f"/api/performance/reviews/{annual.id}/previous-goals"
    goals = [_goal(db, r) for r in (first, second)]
    recorded = api.put(path, as_=exec_user, json={"outcomes": [
        {"goal_id": goals[0], "status": "completed"}, {"goal_id": goals[1], "status": "not_completed"}]})
    assert recorded.status == 200, recorded.json
    assert [_status(db, g) for g in goals] == ["completed", "not_completed"]
    outside = _goal(db, later)
    bad = api.put(path, as_=exec_user, json={"outcomes": [{"goal_id": outside, "status": "completed"}]})
    assert bad.status == 400 and _status(db, outside) is None
