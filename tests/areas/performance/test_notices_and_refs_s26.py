"""Session 26. Performance notices name a review, a person or a cycle and link to a page only for a recipient who may
open it (active, `performance:view`; the review in their scope): `review_assigned`, `feedback_requested` (one and
bulk) and `feedback_request_cancelled`; another recipient gets a generic title and no link. And a feedback response
whose body names a missing (or hidden) request is 400 naming `request_id`, as every create with a body reference.
Through the HTTP client against Postgres."""
from datetime import date

from sqlalchemy import select

from chalicelib.areas.performance.models import FeedbackRequest
from chalicelib.core.locks import insert_rows
from chalicelib.core.notify import Notification
from tests.areas.performance.factories import make_cycle
from tests.factories import grant, make_squad, make_user


def _notice(db, user, type_):
    db.expire_all()
    rows = db.execute(select(Notification.title, Notification.action_url, Notification.resource_id)
                      .where(Notification.user_id == user.id, Notification.type == type_)).all()
    assert len(rows) == 1, rows
    return rows[0]


# ---------------------------------------------------------------- review_assigned

def test_an_executive_naming_a_reviewer_without_performance_is_refused_and_nobody_is_told(api, db, exec_user):
    cycle = make_cycle(db)
    person, blind = make_user(db), make_user(db)
    grant(db, blind, "performance", "none")
    made = api.post("/api/performance/reviews", as_=exec_user,
                    json={"cycle_id": cycle.id, "user_id": person.id, "reviewer_id": blind.id})
    # session 26 (test_stuck_s26.py): one who cannot rate is not named (400), so nobody is told anything
    assert made.status == 400 and made.json["details"][0]["field"] == "reviewer_id", made.json
    db.expire_all()
    assert db.execute(select(Notification.id).where(Notification.user_id == blind.id)).all() == []


def test_review_assigned_to_a_reader_names_the_cycle_and_links(api, db, exec_user):
    cycle = make_cycle(db)
    person, reviewer = make_user(db), make_user(db)
    made = api.post("/api/performance/reviews", as_=exec_user,
                    json={"cycle_id": cycle.id, "user_id": person.id, "reviewer_id": reviewer.id})
    assert made.status == 201, made.json
    review_id = made.json["review"]["id"]
    assert api.get(f"/api/performance/reviews/{review_id}", as_=reviewer).status == 200
    assert _notice(db, reviewer, "review_assigned") == (
        f"You were asked to review ({cycle.name})", f"/performance/reviews/{review_id}", review_id)


# ---------------------------------------------------------------- feedback_requested

def test_feedback_asked_of_a_non_reader_is_refused_and_a_readers_notice_names_the_subject_and_links(api, db, exec_user):
    cycle = make_cycle(db)
    subject, blind, reader = make_user(db, name="Subject Sue"), make_user(db), make_user(db)
    grant(db, blind, "performance", "none")
    for reviewer in (blind, reader):
        made = api.post("/api/performance/feedback/requests", as_=exec_user,
                        json={"cycle_id": cycle.id, "subject_id": subject.id, "reviewer_id": reviewer.id})
        # session 26 (test_stuck_s26.py): one who cannot answer is not asked (400)
        assert made.status == (400 if reviewer is blind else 201), made.json
    assert api.get("/api/performance/feedback/requests", as_=blind).status == 403
    db.expire_all()
    assert db.execute(select(Notification.id).where(Notification.user_id == blind.id)).all() == []
    assert _notice(db, reader, "feedback_requested")[:2] == (
        f"Feedback requested about Subject Sue ({cycle.name})", "/performance/feedback")


def test_bulk_feedback_requested_tells_each_peer_as_they_may_read(api, db, exec_user):
    cycle = make_cycle(db)
    squad = make_squad(db)
    subject = make_user(db, squad_id=squad.id, name="Subject Sam")
    blind, reader = make_user(db, squad_id=squad.id), make_user(db, squad_id=squad.id)
    grant(db, blind, "performance", "none")
    made = api.post("/api/performance/feedback/requests/bulk", as_=exec_user,
                    json={"cycle_id": cycle.id, "subject_id": subject.id})
    # session 26 (test_stuck_s26.py): a peer who cannot answer is not asked
    assert made.status == 201 and made.json == {"created": 1, "total_peers": 1}, made.json
    db.expire_all()
    assert db.execute(select(Notification.id).where(Notification.user_id == blind.id)).all() == []
    assert _notice(db, reader, "feedback_requested")[:2] == (
        f"Feedback requested about Subject Sam ({cycle.name})", "/performance/feedback")


# ---------------------------------------------------------------- feedback_request_cancelled

def test_feedback_request_cancelled_names_and_links_only_for_a_reader(api, db, exec_user):
    cycle = make_cycle(db)
    peer = make_user(db, name="Leaving Lee")
    blind, reader = make_user(db, access_level="manager"), make_user(db, access_level="manager")
    insert_rows(db, FeedbackRequest, [
        {"cycle_id": cycle.id, "subject_id": make_user(db, name="Subject Sid").id, "reviewer_id": peer.id,
         "requested_by": asker.id, "due_date": date(2026, 3, 1), "status": "pending"} for asker in (blind, reader)])
    grant(db, blind, "performance", "none")  # lost the tool since asking
    left = api.put(f"/api/admin/users/{peer.id}", as_=exec_user, json={"is_active": False})
    assert left.status == 200, left.json
    title, link, _ = _notice(db, blind, "feedback_request_cancelled")
    assert (title, link) == ("A colleague you asked for feedback has left", None)
    assert _notice(db, reader, "feedback_request_cancelled")[:2] == (
        f"Leaving Lee left before giving the feedback you asked about Subject Sid ({cycle.name})",
        "/performance/feedback")


# ---------------------------------------------------------------- the response's request_id

GHOST = "00000000-0000-0000-0000-000000000000"
NAMED = {"field": "request_id", "message": "must be a feedback request you were asked"}


def _respond(api, user, request_id):
    return api.post("/api/performance/feedback/responses", as_=user,
                    json={"request_id": request_id, "overall_comment": "Fine"})


def test_a_missing_request_is_400_naming_request_id(api, db, employee):
    answer = _respond(api, employee, GHOST)
    assert answer.status == 400, answer.json
    assert NAMED in answer.json["details"]


def test_a_hidden_request_answers_as_a_missing_one(api, db, exec_user, employee):
    cycle = make_cycle(db)
    made = api.post("/api/performance/feedback/requests", as_=exec_user,
                    json={"cycle_id": cycle.id, "subject_id": make_user(db).id, "reviewer_id": make_user(db).id})
    assert made.status == 201, made.json
    hidden, missing = _respond(api, employee, made.json["request"]["id"]), _respond(api, employee, GHOST)
    assert (hidden.status, hidden.json) == (missing.status, missing.json) == (400, missing.json)


def test_not_the_reviewer_is_403_and_twice_is_409(api, db, exec_user):
    cycle = make_cycle(db)
    reviewer = make_user(db)
    made = api.post("/api/performance/feedback/requests", as_=exec_user,
                    json={"cycle_id": cycle.id, "subject_id": make_user(db).id, "reviewer_id": reviewer.id})
    request_id = made.json["request"]["id"]
    assert _respond(api, exec_user, request_id).status == 403  # sees it (asked), is not the reviewer
    assert _respond(api, reviewer, request_id).status == 201
    assert _respond(api, reviewer, request_id).status == 409
