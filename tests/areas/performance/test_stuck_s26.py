"""Work waiting on someone who cannot act (session 26, docs/decisions/performance.md): a review's reviewer must hold
`performance:update` (rating is an update); a submitted self-assessment whose reviewer cannot rate it goes to the
manager, whose alerts count it; a feedback request goes only to someone holding `performance:view` (answering
needs it), one request or bulk."""
from sqlalchemy import func, select

from chalicelib.areas.performance.models import FeedbackRequest, Review
from chalicelib.core.notify import Notification
from tests.factories import grant, make_squad, make_user

from .factories import make_cycle, manager_review, squad_review_team


def _notices(db, user, type):
    db.expire_all()
    return db.execute(select(Notification.resource_id)
                      .where(Notification.user_id == user.id, Notification.type == type)).scalars().all()


def _create(api, caller, cycle, person, reviewer=None):
    body = {"cycle_id": cycle.id, "user_id": person.id}
    if reviewer is not None:
        body["reviewer_id"] = reviewer.id
    return api.post("/api/performance/reviews", as_=caller, json=body)


def _submit(api, review_id, person):
    for status in ("self_assessment", "in_review"):
        moved = api.put(f"/api/performance/reviews/{review_id}", as_=person, json={"status": status})
        assert moved.status == 200, moved.json


# ---------------------------------------------------------------- reviews

def test_a_reviewer_who_cannot_rate_is_refused(api, db):
    cycle = make_cycle(db)
    manager = make_user(db, access_level="manager")
    person = make_user(db, manager_id=manager.id)
    for level in ("view", "none"):
        reviewer = make_user(db, access_level="lead")
        grant(db, reviewer, "performance", level)
        answer = _create(api, manager, cycle, person, reviewer)
        assert answer.status == 400, (level, answer.status, answer.json)
        assert answer.json["details"][0]["field"] == "reviewer_id", answer.json
        assert _notices(db, reviewer, "review_assigned") == []
    assert db.scalar(select(func.count()).select_from(Review).where(Review.user_id == person.id)) == 0
    # one who may rate (the default employee / lead level is update) is accepted
    rater = make_user(db, access_level="lead")
    made = _create(api, manager, cycle, person, rater)
    assert made.status == 201, made.json
    assert made.json["review"]["reviewer_id"] == rater.id


def test_an_employee_cannot_name_a_manager_who_cannot_rate(api, db):
    cycle = make_cycle(db)
    manager = make_user(db, access_level="manager")
    person = make_user(db, manager_id=manager.id)
    grant(db, manager, "performance", "view")
    answer = _create(api, person, cycle, person, manager)
    assert answer.status == 400 and answer.json["details"][0]["field"] == "reviewer_id", answer.json
    # naming oneself (the default) needs no check beyond the route's own
    assert _create(api, person, cycle, person, person).status == 201


def test_a_submission_to_a_reviewer_who_lost_update_reaches_the_manager_and_their_alerts(api, db):
    cycle, manager, person, reviewer, review_id = manager_review(api, db)
    assert api.get("/api/performance/alerts", as_=manager).json["pending_reviews"] == 0
    grant(db, reviewer, "performance", "view")  # after naming: may read the review, not rate it
    _submit(api, review_id, person)
    assert _notices(db, reviewer, "review_submitted") == []
    assert _notices(db, manager, "review_submitted") == [review_id]
    assert api.put(f"/api/performance/reviews/{review_id}", as_=reviewer,
                   json={"reviewer_notes": "Good"}).status == 403
    assert api.get("/api/performance/alerts", as_=manager).json["pending_reviews"] == 1
    rated = api.put(f"/api/performance/reviews/{review_id}", as_=manager,
                    json={"status": "ready_for_review", "reviewer_notes": "Good"})
    assert rated.status == 200, rated.json


def test_alerts_count_a_team_review_whose_reviewer_has_no_performance(api, db, count_queries):
    cycle, squad_manager, manager, person, outsider, reviewer = squad_review_team(db)
    able = make_user(db, access_level="lead")
    other = make_user(db, manager_id=manager.id)
    assert _create(api, manager, cycle, person, reviewer).status == 201
    assert _create(api, manager, cycle, other, able).status == 201  # a reviewer who may rate: not the manager's
    grant(db, reviewer, "performance", "none")
    with count_queries() as counter:
        counts = {user.name: api.get("/api/performance/alerts", as_=user).json["pending_reviews"]
                  for user in (manager, squad_manager, outsider)}
    assert counts == {manager.name: 1, squad_manager.name: 1, outsider.name: 0}
    with count_queries() as again:
        api.get("/api/performance/alerts", as_=manager)
    assert counter.count == 3 * again.count  # the same statements for every caller


def test_a_reviewer_with_update_is_told_as_before(api, db):
    cycle = make_cycle(db)
    manager = make_user(db, access_level="manager")
    person = make_user(db, manager_id=manager.id)
    reviewer = make_user(db, access_level="lead")
    review_id = _create(api, manager, cycle, person, reviewer).json["review"]["id"]
    _submit(api, review_id, person)
    assert _notices(db, reviewer, "review_submitted") == [review_id]
    assert _notices(db, manager, "review_submitted") == []
    assert api.get("/api/performance/alerts", as_=manager).json["pending_reviews"] == 0
    assert api.get("/api/performance/alerts", as_=reviewer).json["pending_reviews"] == 1


# ---------------------------------------------------------------- feedback

def test_a_feedback_request_to_someone_who_cannot_answer_is_refused(api, db):
    cycle = make_cycle(db)
    manager = make_user(db, access_level="manager")
    person = make_user(db, manager_id=manager.id)
    reviewer = make_user(db)
    grant(db, reviewer, "performance", "none")
    answer = api.post("/api/performance/feedback/requests", as_=manager,
                      json={"cycle_id": cycle.id, "subject_id": person.id, "reviewer_id": reviewer.id,
                            "due_date": "2026-12-31"})
    assert answer.status == 400, (answer.status, answer.json)
    assert answer.json["details"][0]["field"] == "reviewer_id"
    assert db.scalar(select(func.count()).select_from(FeedbackRequest)
                     .where(FeedbackRequest.reviewer_id == reviewer.id)) == 0
    assert _notices(db, reviewer, "feedback_requested") == []
    # view is enough to answer: accepted, and answered
    viewer = make_user(db)
    grant(db, viewer, "performance", "view")
    made = api.post("/api/performance/feedback/requests", as_=manager,
                    json={"cycle_id": cycle.id, "subject_id": person.id, "reviewer_id": viewer.id})
    assert made.status == 201, made.json
    request_id = made.json.get("request", made.json)["id"]
    answered = api.post("/api/performance/feedback/responses", as_=viewer,
                        json={"request_id": request_id, "organisation_rating": "achieving"})
    assert answered.status == 201, answered.json


def test_bulk_feedback_asks_only_peers_who_can_answer(api, db, exec_user):
    cycle = make_cycle(db)
    squad = make_squad(db)
    subject = make_user(db, squad_id=squad.id)
    able = make_user(db, squad_id=squad.id)
    viewer = make_user(db, squad_id=squad.id)
    grant(db, viewer, "performance", "view")
    unable = make_user(db, squad_id=squad.id)
    grant(db, unable, "performance", "none")
    answer = api.post("/api/performance/feedback/requests/bulk", as_=exec_user,
                      json={"cycle_id": cycle.id, "subject_id": subject.id})
    assert answer.status == 201, answer.json
    assert answer.json == {"created": 2, "total_peers": 2}
    asked = set(db.scalars(select(FeedbackRequest.reviewer_id).where(FeedbackRequest.subject_id == subject.id)))
    assert asked == {able.id, viewer.id}
    assert _notices(db, unable, "feedback_requested") == []
