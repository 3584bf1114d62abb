"""Session 25 (audit "nobody is told"): a submitted self-assessment reaches someone who can finish the review
(`review_submitted`), and a deactivated user's pending feedback requests are reported to the requesters
(`feedback_request_cancelled`). Through the HTTP client against Postgres."""
from datetime import date

from sqlalchemy import select

from chalicelib.areas.performance.models import FeedbackRequest
from chalicelib.core.locks import insert_rows
from chalicelib.core.notify import Notification
from tests.areas.performance.factories import (ask_feedback, create_review, make_cycle, manager_review,
                                               squad_review_team)
from tests.factories import make_squad, make_user


def _notices(db, user, type):
    db.expire_all()
    return db.execute(select(Notification.resource_type, Notification.resource_id, Notification.action_url)
                      .where(Notification.user_id == user.id, Notification.type == type)).all()


def _submit(api, review_id, person):
    for status in ("self_assessment", "in_review"):
        moved = api.put(f"/api/performance/reviews/{review_id}", as_=person,
                        json={"status": status, "strengths": "Shipped the checkout"})
        assert moved.status == 200, moved.json


# ---------------------------------------------------------------- review_submitted

def test_a_submitted_self_assessment_tells_the_reviewer_once(api, db):
    cycle, manager, person, reviewer, review_id = manager_review(api, db)
    moved = api.put(f"/api/performance/reviews/{review_id}", as_=person, json={"status": "self_assessment"})
    assert moved.status == 200
    assert _notices(db, reviewer, "review_submitted") == []  # the move to self_assessment is no submission
    moved = api.put(f"/api/performance/reviews/{review_id}", as_=person, json={"status": "in_review"})
    assert moved.status == 200
    assert _notices(db, reviewer, "review_submitted") == [("review", review_id, f"/performance/reviews/{review_id}")]
    assert _notices(db, manager, "review_submitted") == []  # the reviewer is there: only they are told
    # a no-op (already in_review) tells nobody again, even past the de-duplication window
    db.execute(Notification.__table__.delete().where(Notification.user_id == reviewer.id,
                                                     Notification.type == "review_submitted"))
    db.flush()
    again = api.put(f"/api/performance/reviews/{review_id}", as_=person, json={"status": "in_review",
                                                                                "growth_areas": "Estimates"})
    assert again.status == 200
    assert _notices(db, reviewer, "review_submitted") == []


def test_a_submission_to_a_reviewer_who_left_reaches_the_manager(api, db):
    cycle, manager, person, reviewer, review_id = manager_review(api, db)
    assert api.get("/api/performance/alerts", as_=manager).json["pending_reviews"] == 0
    reviewer.is_active = False
    db.flush()
    _submit(api, review_id, person)
    assert _notices(db, manager, "review_submitted") == [("review", review_id, f"/performance/reviews/{review_id}")]
    assert _notices(db, reviewer, "review_submitted") == []
    # the manager is the one who can now rate and complete it: their alerts count it
    assert api.get("/api/performance/alerts", as_=manager).json["pending_reviews"] == 1


def test_an_own_review_submission_reaches_the_first_active_reader_among_the_managers(api, db):
    cycle = make_cycle(db)
    squad_manager = make_user(db, access_level="manager")
    squad = make_squad(db, manager_id=squad_manager.id)
    lead = make_user(db, access_level="lead")  # the direct manager, but a lead does not see the review
    person = make_user(db, manager_id=lead.id, squad_id=squad.id)
    review_id = create_review(api, person, cycle, person)  # the reviewer defaults to the person: nobody judges themselves
    _submit(api, review_id, person)
    assert _notices(db, person, "review_submitted") == []
    assert _notices(db, lead, "review_submitted") == []
    assert _notices(db, squad_manager, "review_submitted") == [
        ("review", review_id, f"/performance/reviews/{review_id}")]


def test_an_inactive_direct_manager_is_passed_over_for_the_squad_manager(api, db):
    cycle = make_cycle(db)
    squad_manager = make_user(db, access_level="manager")
    squad = make_squad(db, manager_id=squad_manager.id)
    direct = make_user(db, access_level="manager")
    person = make_user(db, manager_id=direct.id, squad_id=squad.id)
    reviewer = make_user(db, access_level="lead")
    review_id = create_review(api, direct, cycle, person, reviewer)
    reviewer.is_active = False
    direct.is_active = False
    db.flush()
    _submit(api, review_id, person)
    assert [row[0] for row in _notices(db, squad_manager, "review_submitted")] == ["review"]


def test_alerts_count_a_team_review_whose_reviewer_left(api, db):
    cycle, squad_manager, manager, person, outsider, reviewer = squad_review_team(db)
    create_review(api, manager, cycle, person, reviewer)
    reviewer.is_active = False
    db.flush()
    counts = {user.name: api.get("/api/performance/alerts", as_=user).json["pending_reviews"]
              for user in (manager, squad_manager, outsider)}
    assert counts == {manager.name: 1, squad_manager.name: 1, outsider.name: 0}


# ---------------------------------------------------------------- feedback_request_cancelled

def test_deactivating_a_reviewer_tells_each_requester_once(api, db, exec_user):
    cycle = make_cycle(db)
    asker, other_asker, answered_asker = (make_user(db, access_level="manager") for _ in range(3))
    peer = make_user(db)
    for subject_of in (asker, asker):
        ask_feedback(api, subject_of, cycle, make_user(db, manager_id=subject_of.id), peer)
    ask_feedback(api, other_asker, cycle, make_user(db, manager_id=other_asker.id), peer)
    ask_feedback(api, answered_asker, cycle, make_user(db, manager_id=answered_asker.id), peer)
    ask_feedback(api, exec_user, cycle, make_user(db), peer)  # the admin who deactivates: not told of their own act
    answered = db.scalar(select(FeedbackRequest.id).where(FeedbackRequest.requested_by == answered_asker.id))
    responded = api.post("/api/performance/feedback/responses", as_=peer,
                         json={"request_id": answered, "overall_comment": "Good"})
    assert responded.status == 201, responded.json
    left = api.put(f"/api/admin/users/{peer.id}", as_=exec_user, json={"is_active": False})
    assert left.status == 200, left.json
    assert len(_notices(db, asker, "feedback_request_cancelled")) == 1
    assert len(_notices(db, other_asker, "feedback_request_cancelled")) == 1
    assert _notices(db, answered_asker, "feedback_request_cancelled") == []
    assert _notices(db, exec_user, "feedback_request_cancelled") == []
    # no `cancelled` status exists (spec: pending -> submitted; FeedbackRequestRead): the requests stay as they were
    statuses = sorted(db.scalars(select(FeedbackRequest.status).where(FeedbackRequest.reviewer_id == peer.id)))
    assert statuses == ["pending"] * 4 + ["submitted"]


def test_only_a_deactivation_tells(api, db, exec_user):
    cycle = make_cycle(db)
    asker = make_user(db, access_level="manager")
    peer = make_user(db)
    ask_feedback(api, asker, cycle, make_user(db, manager_id=asker.id), peer)
    assert api.put(f"/api/admin/users/{peer.id}", as_=exec_user, json={"job_title": "Dev"}).status == 200
    assert api.put(f"/api/admin/users/{peer.id}", as_=exec_user, json={"is_active": True}).status == 200
    assert _notices(db, asker, "feedback_request_cancelled") == []


def test_the_requesters_are_told_in_a_fixed_number_of_statements(api, db, exec_user, count_queries, aws):
    """2 and 12 requesters: the same statements (the notifications queue configured, as deployed, so that
    delivery is not counted)."""
    cycle = make_cycle(db)
    counts, told = [], []
    for size in (2, 12):
        peer = make_user(db)
        askers = [make_user(db) for _ in range(size)]
        insert_rows(db, FeedbackRequest, [
            {"cycle_id": cycle.id, "subject_id": make_user(db).id, "reviewer_id": peer.id,
             "requested_by": asker.id, "due_date": date(2026, 3, 1), "status": "pending"} for asker in askers])
        db.refresh(exec_user)  # loaded here, not in the count
        with count_queries() as counter:
            assert api.put(f"/api/admin/users/{peer.id}", as_=exec_user, json={"is_active": False}).status == 200
        counts.append(counter.count)
        told.append(sum(len(_notices(db, asker, "feedback_request_cancelled")) for asker in askers))
    assert told == [2, 12]
    assert counts[0] == counts[1], counts
