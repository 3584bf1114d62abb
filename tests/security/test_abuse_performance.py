"""Business-rule abuse in performance reviews (security audit S5): the reviewed person judging themselves.

An employee (performance:update by default) may create their own review, and the reviewer defaults to the
caller: the reviewed person was then also the reviewer, rated their own KPIs and completed their own review
(kpi_passed stored, and read by history). The reviewed person also recorded the outcomes of the goals of their
own earlier reviews (goals_completed in history)."""
from datetime import date

from sqlalchemy import select

from chalicelib.areas.performance.models import ReviewGoal
from tests.areas.performance.factories import make_cycle, make_review, make_template
from tests.factories import make_user


def test_an_employee_cannot_rate_and_complete_their_own_review(api, db):
    employee = make_user(db)
    make_template(db, user_ids=[employee.id])
    cycle = make_cycle(db)
    made = api.post("/api/performance/reviews", as_=employee, json={"cycle_id": cycle.id, "user_id": employee.id})
    assert made.status == 201, made  # an employee may open their own review (docs/decisions/performance.md)
    path = f"/api/performance/reviews/{made.json['review']['id']}"
    kpis = api.get(path, as_=employee).json["kpi_ratings"]
    rated = api.put(path, as_=employee, json={"kpi_ratings": [{"id": k["id"], "rating": "exceeding"} for k in kpis]})
    assert rated.status == 403, rated
    assert api.put(path, as_=employee, json={"reviewer_notes": "Outstanding"}).status == 403
    for status in ("self_assessment", "in_review"):
        assert api.put(path, as_=employee, json={"status": status}).status == 200
    assert api.put(path, as_=employee, json={"status": "ready_for_review"}).status == 403
    assert api.get(path, as_=employee).json["review"]["status"] == "in_review"


def test_a_manager_cannot_review_themselves(api, db):
    manager = make_user(db, access_level="manager")
    make_template(db, user_ids=[manager.id])
    cycle = make_cycle(db)
    made = api.post("/api/performance/reviews", as_=manager,
                    json={"cycle_id": cycle.id, "user_id": manager.id, "reviewer_id": manager.id})
    path = f"/api/performance/reviews/{made.json['review']['id']}"
    kpis = api.get(path, as_=manager).json["kpi_ratings"]
    rated = api.put(path, as_=manager, json={"kpi_ratings": [{"id": k["id"], "rating": "exceeding"} for k in kpis]})
    assert rated.status == 403, rated


def test_the_reviewed_person_cannot_record_their_own_goal_outcomes(api, db):
    employee = make_user(db)
    boss = make_user(db, access_level="executive")
    q1 = make_cycle(db, name="Q1", period_start=date(2026, 1, 1), period_end=date(2026, 3, 31))
    q2 = make_cycle(db, name="Q2", period_start=date(2026, 4, 1), period_end=date(2026, 6, 30))
    earlier = make_review(db, cycle=q1, user=employee, reviewer=boss, status="completed", goals=[("Ship A", None)],
                          kpi_pass_count=0, kpi_total_count=0, kpi_passed=True, completed_at=date(2026, 4, 2))
    goal_id = db.scalar(select(ReviewGoal.id).where(ReviewGoal.review_id == earlier.id))
    current = make_review(db, cycle=q2, user=employee, reviewer=boss)
    path = f"/api/performance/reviews/{current.id}/previous-goals"
    answer = api.put(path, as_=employee, json={"outcomes": [{"goal_id": goal_id, "status": "completed"}]})
    assert answer.status == 403, answer
    db.expire_all()
    assert db.get(ReviewGoal, goal_id).status is None
    history = api.get(f"/api/performance/reviews/history/{employee.id}", as_=employee).json["history"]
    assert history[0]["goals_completed"] == 0
    # the reviewer records them
    assert api.put(path, as_=boss, json={"outcomes": [{"goal_id": goal_id, "status": "completed"}]}).status == 200
