"""Performance races against a real HTTP server on Postgres (the server and helpers of test_concurrency.py):
concurrent bulk feedback requests notify each peer once, about the request that exists; assignments of different
templates to one user at once all succeed and leave one; a review create or a goal-outcome write that waited for
another transaction (closing the cycle, completing the review) sees what it committed."""
from __future__ import annotations

import secrets
from datetime import date

from sqlalchemy import func, select, update

from tests.concurrency.test_concurrency import THREADS, _all_at_once, _call, _token, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def _email(kind: str) -> str:
    return f"{kind}-{secrets.token_hex(4)}@agency.test"


def test_concurrent_bulk_requests_notify_each_peer_once(live):
    from chalicelib.areas.performance.models import FeedbackRequest
    from chalicelib.core.notify import Notification
    from tests.areas.performance.factories import make_cycle
    from tests.factories import make_squad, make_user

    base, sessions = live
    with sessions() as db:
        executive = make_user(db, access_level="executive", email=_email("exec"))
        cycle = make_cycle(db)
        db.commit()
    token = _token(executive)
    for _ in range(4):  # four rounds, a subject each: a race that one round may miss
        with sessions() as db:
            squad = make_squad(db)
            subject = make_user(db, squad_id=squad.id, email=_email("subject"))
            peers = [make_user(db, squad_id=squad.id, email=_email("peer")) for _ in range(5)]
            db.commit()
        body = {"cycle_id": cycle.id, "subject_id": subject.id}
        results = _all_at_once([(lambda body=body: _call(base, "POST", "/api/performance/feedback/requests/bulk", token,
                                                          body))
                                for _ in range(THREADS)])
        assert {status for status, _ in results} == {201}, results
        assert sum(answer["created"] for _, answer in results) == len(peers), results
        with sessions() as db:
            requests = set(db.scalars(select(FeedbackRequest.id).where(FeedbackRequest.subject_id == subject.id)))
            notices = db.execute(select(Notification.user_id, Notification.resource_id)
                                 .where(Notification.type == "feedback_requested",
                                        Notification.user_id.in_([peer.id for peer in peers]))).all()
        assert len(requests) == len(peers)
        assert sorted(user_id for user_id, _ in notices) == sorted(peer.id for peer in peers)  # one each
        assert {resource_id for _, resource_id in notices} == requests  # each about the request that exists


def test_concurrent_assignments_of_different_templates_leave_one(live):
    from chalicelib.areas.performance.models import ReviewTemplateAssignment
    from tests.areas.performance.factories import make_template
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        executive = make_user(db, access_level="executive", email=_email("exec"))
        person = make_user(db, email=_email("person"))
        templates = [make_template(db)[0] for _ in range(THREADS)]
        db.commit()
    token = _token(executive)
    for _ in range(2):  # two rounds: a race that one round may miss
        results = _all_at_once([(lambda t=t: _call(base, "POST", f"/api/performance/templates/{t.id}/users", token,
                                                   {"user_ids": [person.id]})) for t in templates])
        assert [status for status, _ in results] == [200] * THREADS, results
        with sessions() as db:
            assigned = db.scalars(select(ReviewTemplateAssignment.template_id)
                                  .where(ReviewTemplateAssignment.user_id == person.id)).all()
        assert len(assigned) == 1 and assigned[0] in {t.id for t in templates}


def test_a_review_create_that_waited_for_the_cycle_closing_is_refused(live):
    from chalicelib.areas.performance.models import Review, ReviewCycle
    from tests.areas.performance.factories import make_cycle
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        executive = make_user(db, access_level="executive", email=_email("exec"))
        person = make_user(db, email=_email("person"))
        cycle = make_cycle(db, status="open")
        db.commit()
    status, body = while_held(
        sessions, update(ReviewCycle).where(ReviewCycle.id == cycle.id).values(status="closed"),
        lambda: _call(base, "POST", "/api/performance/reviews", _token(executive),
                      {"cycle_id": cycle.id, "user_id": person.id}))
    assert status == 400, (status, body)
    with sessions() as db:
        assert db.scalar(select(func.count()).select_from(Review).where(Review.cycle_id == cycle.id)) == 0


def test_goal_outcomes_that_waited_for_the_completion_are_refused(live):
    from chalicelib.areas.performance.models import Review, ReviewGoal
    from tests.areas.performance.factories import make_cycle, make_review
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        executive = make_user(db, access_level="executive", email=_email("exec"))
        person = make_user(db, email=_email("person"))
        earlier = make_review(db, cycle=make_cycle(db, status="closed"), user=person, reviewer=executive,
                              status="completed", goals=[("Ship the thing", None)])
        review = make_review(db, cycle=make_cycle(db, period_start=date(2026, 4, 1), period_end=date(2026, 6, 30)),
                             user=person, reviewer=executive, status="ready_for_review")
        goal_id = db.scalar(select(ReviewGoal.id).where(ReviewGoal.review_id == earlier.id))
        db.commit()
    status, body = while_held(
        sessions, update(Review).where(Review.id == review.id).values(status="completed"),
        lambda: _call(base, "PUT", f"/api/performance/reviews/{review.id}/previous-goals", _token(executive),
                      {"outcomes": [{"goal_id": goal_id, "status": "completed"}]}))
    assert status == 409, (status, body)
    with sessions() as db:
        assert db.scalar(select(ReviewGoal.status).where(ReviewGoal.id == goal_id)) is None
