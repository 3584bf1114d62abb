"""Performance: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The review list and detail are tested in test_reviews.py; session 23: the detail's `previous_reviews`
here, at its stated number of statements."""
from datetime import date, datetime, timedelta, timezone

from chalicelib.areas.performance.models import FeedbackRequest, ReviewGoal, ReviewTemplateItem
from chalicelib.core.locks import insert_rows
from tests.factories import assert_constant, exact_statements, make_user

from .factories import make_cycle, make_review, make_template


def test_cycles(api, db, exec_user, count_queries):
    def grow(n):
        for _ in range(n):
            make_cycle(db, created_by=make_user(db).id)

    assert_constant(api, count_queries, exec_user, "/api/performance/cycles", grow, lambda b: len(b["cycles"]))


def test_templates(api, db, exec_user, count_queries):
    def grow(n):
        for _ in range(n):
            make_template(db, user_ids=[make_user(db).id, make_user(db).id])

    body = assert_constant(api, count_queries, exec_user, "/api/performance/templates", grow,
                           lambda b: len(b["templates"]))
    assert all(len(t["items"]) == 2 and len(t["user_ids"]) == 2 for t in body["templates"])


def test_template_detail_items(api, db, exec_user, count_queries):
    template, _ = make_template(db, items=())

    def grow(n):
        start = len(db.query(ReviewTemplateItem).filter_by(template_id=template.id).all())
        insert_rows(db, ReviewTemplateItem, [{"template_id": template.id, "area": "A", "label": f"K{start + i}",
                                              "is_mandatory": False, "sort_order": start + i} for i in range(n)])

    assert_constant(api, count_queries, exec_user, f"/api/performance/templates/{template.id}", grow,
                    lambda b: len(b["template"]["items"]))


def test_feedback_requests(api, db, exec_user, count_queries):
    def grow(n):
        for _ in range(n):
            insert_rows(db, FeedbackRequest, [{"cycle_id": make_cycle(db).id, "subject_id": make_user(db).id,
                                               "reviewer_id": exec_user.id, "requested_by": make_user(db).id,
                                               "due_date": date(2026, 3, 1)}])

    body = assert_constant(api, count_queries, exec_user, "/api/performance/feedback/requests", grow,
                           lambda b: len(b["requests"]))
    assert all(r["subject_name"] and r["cycle_name"] for r in body["requests"])


def test_review_history(api, db, exec_user, count_queries):
    person = make_user(db)

    def grow(n):
        for i in range(n):
            review = make_review(db, cycle=make_cycle(db), user=person, reviewer=exec_user, status="completed",
                                 completed_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
                                 goals=[("Ship", "completed"), ("Learn", "not_completed")])
            assert review.id

    body = assert_constant(api, count_queries, exec_user, f"/api/performance/reviews/history/{person.id}", grow,
                           lambda b: len(b["history"]))
    assert all(h["goal_count"] == 2 and h["cycle_name"] for h in body["history"])


def test_my_goals(api, db, exec_user, count_queries):
    review = make_review(db, cycle=make_cycle(db), user=exec_user, status="completed",
                         completed_at=datetime(2026, 1, 1, tzinfo=timezone.utc))

    def grow(n):
        start = len(db.query(ReviewGoal).filter_by(review_id=review.id).all())
        insert_rows(db, ReviewGoal, [{"review_id": review.id, "goal": f"G{start + i}", "status": "completed",
                                      "sort_order": start + i} for i in range(n)])

    assert_constant(api, count_queries, exec_user, "/api/performance/my-goals", grow, lambda b: len(b["goals"]))



# the caller, the review (its check), its cycle, the previous reviews, their ratings, their goals, the review's row,
# its ratings, its goals
REVIEW_DETAIL_STATEMENTS = 9


def test_review_detail_previous_reviews(api, db, exec_user, employee, count_queries):
    """Session 23: an annual review's detail with 5 and 60 completed quarterly reviews of the year, each with a
    rating, a goal and its own reviewer (test_reviews.py compares 1 and 3)."""
    _, items = make_template(db, user_ids=[employee.id])
    year = make_cycle(db, type="annual", period_start=date(2026, 1, 1), period_end=date(2026, 12, 31))
    annual = make_review(db, cycle=year, user=employee, reviewer=exec_user)
    made = []

    def grow(n):
        for _ in range(n):
            start = date(2026, 1, 1) + timedelta(days=len(made) + 1)
            cycle = make_cycle(db, period_start=start, period_end=start + timedelta(days=30))
            made.append(make_review(db, cycle=cycle, user=employee, status="completed", reviewer=make_user(db),
                                    kpis=[(items[0].id, "achieving")], goals=[(f"G{len(made)}", "completed")]).id)

    body = exact_statements(count_queries, lambda: api.get(f"/api/performance/reviews/{annual.id}", as_=exec_user),
                            grow, lambda b: len(b["previous_reviews"]), (5, 60), REVIEW_DETAIL_STATEMENTS)
    previous = body["previous_reviews"]
    assert [p["review"]["id"] for p in previous] == made
    assert [p["goals"][0]["goal"] for p in previous] == [f"G{n}" for n in range(60)]
    assert all(p["kpi_ratings"] == [{"template_item_id": items[0].id, "rating": "achieving"}] for p in previous)
    assert body["kpi_aggregation"] == {items[0].id: {"ratings": {"achieving": 60}, "most_common": "achieving"}}
