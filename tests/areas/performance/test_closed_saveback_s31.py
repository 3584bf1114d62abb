"""Session 31's review of its own change: a closed cycle's reviews are fixed (409 until it is reopened), but a
save-back that changes nothing is no change (session 25's rule, kept by every state this session froze): the review
PUT back as read, goals and ratings included, and earlier goals' outcomes sent back as stored answer 200 in a closed
cycle; a reviewed person sending the reviewer's part changed meets the role's 403 first."""
from datetime import date

from tests.areas.performance.factories import make_cycle, make_review
from tests.factories import make_user


def test_a_review_sent_back_unchanged_in_a_closed_cycle_is_no_change(api, db, exec_user, employee):
    cycle = make_cycle(db, status="closed")
    review = make_review(db, cycle=cycle, user=employee, reviewer=exec_user, status="in_review",
                         kpis=[(None, "achieving")], goals=[("Ship A", None)], strengths="Clear")
    path = f"/api/performance/reviews/{review.id}"
    read = api.get(path, as_=employee).json
    body = {"status": read["review"]["status"], "strengths": read["review"]["strengths"],
            "goals": [{key: goal[key] for key in ("goal", "success_measures", "support_needed", "sort_order")}
                      for goal in read["goals"]],
            "kpi_ratings": [{"id": kpi["id"], "rating": kpi["rating"]} for kpi in read["kpi_ratings"]]}
    for caller in (employee, exec_user):
        answer = api.put(path, as_=caller, json=body)
        assert answer.status == 200, (answer.status, answer.json)
    # a change is still refused, and the reviewed person sending the reviewer's part meets the role's 403 first
    assert api.put(path, as_=employee, json={**body, "strengths": "Changed"}).status == 409
    assert api.put(path, as_=employee, json={"reviewer_notes": "mine"}).status == 403


def test_earlier_outcomes_sent_back_as_stored_in_a_closed_cycle_are_no_change(api, db, exec_user, employee):
    q1 = make_cycle(db, name="Q1", period_start=date(2026, 1, 1), period_end=date(2026, 3, 31))
    q2 = make_cycle(db, name="Q2", period_start=date(2026, 4, 1), period_end=date(2026, 6, 30), status="closed")
    make_review(db, cycle=q1, user=employee, reviewer=exec_user, status="completed",
                goals=[("Ship A", "completed")], completed_at=date(2026, 4, 2))
    current = make_review(db, cycle=q2, user=employee, reviewer=exec_user, status="in_review")
    path = f"/api/performance/reviews/{current.id}/previous-goals"
    goal = api.get(f"/api/performance/reviews/{current.id}", as_=exec_user).json["previous_reviews"][0]["goals"][0]
    assert api.put(path, as_=exec_user, json={"outcomes": [{"goal_id": goal["id"], "status": "completed"}]}).status == 200
    assert api.put(path, as_=exec_user, json={"outcomes": [{"goal_id": goal["id"], "status": "not_completed"}]}).status == 409
    assert api.put(path, as_=make_user(db), json={"outcomes": []}).status in (403, 404)
