"""Performance: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The review list and detail are tested in test_reviews.py."""
from datetime import date, datetime, timezone

from chalicelib.areas.performance.models import FeedbackRequest, ReviewGoal, ReviewTemplateItem
from chalicelib.core.locks import insert_rows
from tests.factories import assert_constant, make_user

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
