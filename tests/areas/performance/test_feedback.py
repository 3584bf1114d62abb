"""Peer feedback and alerts at /api/performance: requests, bulk peer selection per access level, responses by
the requested reviewer once, the anonymised summary."""
import json

import pytest
from sqlalchemy import func, select

from chalicelib.areas.performance.models import FeedbackRequest, FeedbackResponse
from chalicelib.core.notify import Notification
from tests.areas.performance.factories import make_cycle, make_review
from tests.factories import make_squad, make_user


def _ask(api, caller, cycle, subject, reviewer, **extra):
    return api.post("/api/performance/feedback/requests", as_=caller, json={
        "cycle_id": cycle.id, "subject_id": subject.id, "reviewer_id": reviewer.id, **extra})


@pytest.mark.smoke
def test_request_respond_once_and_list(api, db, exec_user, employee):
    cycle = make_cycle(db)
    subject = make_user(db)
    made = _ask(api, exec_user, cycle, subject, employee, due_date="2026-04-01")
    assert made.status == 201, made
    request = made.json["request"]
    assert request["status"] == "pending" and request["subject_name"] == subject.name
    assert _ask(api, exec_user, cycle, subject, employee).status == 409
    assert _ask(api, exec_user, cycle, subject, subject).status == 400
    assert _ask(api, exec_user, make_cycle(db, status="closed"), subject, employee).status == 400
    assert db.scalar(select(func.count()).select_from(Notification).where(
        Notification.user_id == employee.id, Notification.type == "feedback_requested")) == 1
    listed = api.get("/api/performance/feedback/requests", as_=employee).json["requests"]
    assert [r["id"] for r in listed] == [request["id"]]
    assert api.get("/api/performance/feedback/requests", as_=subject).json["requests"] == []
    body = {"request_id": request["id"], "organisation_rating": "achieving", "overall_comment": "Great"}
    assert api.post("/api/performance/feedback/responses", as_=exec_user, json=body).status == 403
    answered = api.post("/api/performance/feedback/responses", as_=employee, json=body)
    assert answered.status == 201 and set(answered.json) == {"response"}, answered
    assert api.post("/api/performance/feedback/responses", as_=employee, json=body).status == 409
    assert api.get("/api/performance/feedback/requests", as_=employee).json["requests"] == []
    assert db.get(FeedbackRequest, request["id"]).status == "submitted"
    assert api.post("/api/performance/feedback/responses", as_=employee,
                    json={"request_id": request["id"], "performance_rating": "superb"}).status == 400
    assert api.post("/api/performance/feedback/responses", as_=employee, json={"request_id": "nope"}).status == 400


def test_a_response_answers_201_with_the_record_it_stored(api, db, exec_user, employee):
    """decisions.md section 9: a create whose response the documents do not show answers 201 with the record under
    its singular key, and every record carries its id (it answered `{ok: true}` before). The record is what the row
    stores: the answers and the request, no reviewer and no time."""
    cycle = make_cycle(db)
    made = _ask(api, exec_user, cycle, make_user(db), employee)
    request_id = made.json["request"]["id"]
    answered = api.post("/api/performance/feedback/responses", as_=employee, json={
        "request_id": request_id, "organisation_rating": "achieving", "communication_rating": "exceeding",
        "performance_comment": " On time ", "overall_comment": "Great"})
    assert answered.status == 201, answered
    response = answered.json["response"]
    stored = db.scalar(select(FeedbackResponse).where(FeedbackResponse.request_id == request_id))
    assert response == {
        "id": stored.id, "request_id": request_id, "organisation_rating": "achieving", "performance_rating": None,
        "communication_rating": "exceeding", "development_rating": None, "automation_rating": None,
        "organisation_comment": None, "performance_comment": stored.performance_comment,
        "automation_comment": None, "overall_comment": "Great"}
    assert response["performance_comment"].strip() == "On time"


def test_an_employee_asks_only_about_themselves(api, db, employee):
    cycle = make_cycle(db)
    peer = make_user(db)
    assert _ask(api, employee, cycle, make_user(db), peer).status == 403
    assert _ask(api, employee, cycle, employee, peer).status == 201


def test_bulk_peer_selection_per_access_level(api, db, exec_user):
    cycle = make_cycle(db)
    squad = make_squad(db)
    employee = make_user(db, squad_id=squad.id)
    squad_peers = [make_user(db, squad_id=squad.id, access_level=level) for level in ("employee", "lead")]
    make_user(db, squad_id=squad.id, is_active=False)
    make_user(db)  # another squad
    head = make_user(db, access_level="head")
    other_head = make_user(db, access_level="head")
    manager = make_user(db, access_level="manager", manager_id=head.id)
    other_manager = make_user(db, access_level="manager")
    report = make_user(db, manager_id=manager.id)
    make_user(db, manager_id=head.id)  # a head's report who is not a manager

    def peers_of(subject):
        answer = api.post("/api/performance/feedback/requests/bulk", as_=exec_user,
                          json={"cycle_id": cycle.id, "subject_id": subject.id, "due_date": "2026-04-01"})
        assert answer.status == 201, answer
        asked = set(db.scalars(select(FeedbackRequest.reviewer_id).where(FeedbackRequest.subject_id == subject.id)))
        return answer.json, asked

    body, asked = peers_of(employee)
    assert body == {"created": 2, "total_peers": 2} and asked == {u.id for u in squad_peers}
    body, asked = peers_of(manager)
    assert asked == {other_manager.id, report.id} and body["created"] == 2
    body, asked = peers_of(head)
    # fellow heads (the executive is not a head) and the direct reports who are managers
    assert asked == {other_head.id, manager.id}
    again = api.post("/api/performance/feedback/requests/bulk", as_=exec_user,
                     json={"cycle_id": cycle.id, "subject_id": employee.id})
    assert again.json == {"created": 0, "total_peers": 2}
    notified = db.scalar(select(func.count()).select_from(Notification).where(
        Notification.type == "feedback_requested", Notification.user_id.in_([u.id for u in squad_peers])))
    assert notified == 2


def test_bulk_costs_the_same_for_many_peers(api, db, exec_user, count_queries, aws):
    """With the notifications queue set (as deployed), delivery leaves the request: a fixed statement count."""
    counts = []
    for n in (10, 100):
        squad = make_squad(db)
        subject = make_user(db, squad_id=squad.id)
        for _ in range(n):
            make_user(db, squad_id=squad.id)
        with count_queries() as counter:
            answer = api.post("/api/performance/feedback/requests/bulk", as_=exec_user,
                              json={"cycle_id": make_cycle(db).id, "subject_id": subject.id})
        assert answer.json == {"created": n, "total_peers": n}
        counts.append(counter.count)
    assert counts[0] == counts[1], counts


def _respond(api, db, cycle, subject, reviewer, **answers):
    request = FeedbackRequest(cycle_id=cycle.id, subject_id=subject.id, reviewer_id=reviewer.id, status="pending")
    db.add(request)
    db.flush()
    answer = api.post("/api/performance/feedback/responses", as_=reviewer, json={"request_id": request.id, **answers})
    assert answer.status == 201, answer


def test_summary_is_anonymous_and_needs_manager_level(api, db, exec_user):
    cycle = make_cycle(db)
    manager = make_user(db, access_level="manager")
    subject = make_user(db, manager_id=manager.id)
    empty = api.get(f"/api/performance/feedback/summary/{subject.id}", as_=manager)
    assert empty.json == {"sufficient": False, "response_count": 0, "minimum_required": 1}
    reviewers = [make_user(db, name=f"Reviewer Secret{i}", email=f"secret{i}@agency.test") for i in range(3)]
    comments = ["Clear communicator", "Could automate more", "Reliable"]
    for i, reviewer in enumerate(reviewers):
        _respond(api, db, cycle, subject, reviewer, organisation_rating="achieving",
                 performance_rating=("exceeding" if i else "developing"), automation_comment=comments[i],
                 overall_comment=f"Overall {i}", organisation_comment=("   " if i == 2 else "Organised"))
    answer = api.get(f"/api/performance/feedback/summary/{subject.id}?cycle_id={cycle.id}", as_=manager)
    assert answer.status == 200
    summary = answer.json
    assert summary["sufficient"] is True and summary["response_count"] == 3
    assert summary["areas"]["organisation"]["ratings"] == {"achieving": 3}
    assert summary["areas"]["performance"]["ratings"] == {"developing": 1, "exceeding": 2}
    assert sorted(summary["areas"]["automation"]["comments"]) == sorted(comments)
    assert summary["areas"]["organisation"]["comments"] == ["Organised", "Organised"]
    assert summary["areas"]["communication"] == {"ratings": {}, "comments": []}
    assert sorted(summary["overall_comments"]) == ["Overall 0", "Overall 1", "Overall 2"]
    text = json.dumps(summary)
    for reviewer in reviewers:  # no reviewer identity anywhere in the answer
        assert reviewer.id not in text and "Secret" not in text and "secret" not in text
    assert "request_id" not in text and "reviewer" not in text
    orders = {tuple(api.get(f"/api/performance/feedback/summary/{subject.id}", as_=manager)
                    .json["areas"]["automation"]["comments"]) for _ in range(12)}
    assert len(orders) > 1  # shuffled
    assert api.get(f"/api/performance/feedback/summary/{subject.id}", as_=subject).status == 403  # employee
    lead = make_user(db, access_level="lead")
    assert api.get(f"/api/performance/feedback/summary/{subject.id}", as_=lead).status == 403
    other_manager = make_user(db, access_level="manager")
    assert api.get(f"/api/performance/feedback/summary/{subject.id}", as_=other_manager).status == 404
    assert api.get(f"/api/performance/feedback/summary/{subject.id}", as_=exec_user).json["response_count"] == 3
    other_cycle = api.get(f"/api/performance/feedback/summary/{subject.id}?cycle_id={make_cycle(db).id}", as_=manager)
    assert other_cycle.json["sufficient"] is False


def test_alerts(api, db, exec_user, employee):
    cycle = make_cycle(db)
    make_cycle(db, status="draft")
    make_review(db, cycle=cycle, user=make_user(db), reviewer=employee, status="in_review")
    make_review(db, cycle=make_cycle(db), user=make_user(db), reviewer=employee, status="completed")
    make_review(db, cycle=cycle, user=employee, reviewer=exec_user, status="self_assessment")
    db.add(FeedbackRequest(cycle_id=cycle.id, subject_id=exec_user.id, reviewer_id=employee.id, status="pending"))
    db.flush()
    answer = api.get("/api/performance/alerts", as_=employee).json
    open_cycles = db.scalar(select(func.count()).select_from(type(cycle)).where(type(cycle).status == "open"))
    assert answer == {"pending_reviews": 1, "self_assessments": 1, "pending_feedback": 1, "open_cycles": open_cycles}


def test_summary_comment_lists_hold_at_most_500(api, db, exec_user):
    """decisions.md section 4: the ratings count every response; each list of comments holds at most 500."""
    from chalicelib.areas.performance.models import FeedbackResponse

    cycle = make_cycle(db)
    subject = make_user(db)
    reviewers = [make_user(db) for _ in range(501)]
    requests = [FeedbackRequest(cycle_id=cycle.id, subject_id=subject.id, reviewer_id=r.id, status="submitted")
                for r in reviewers]
    db.add_all(requests)
    db.flush()
    db.add_all([FeedbackResponse(request_id=request.id, organisation_rating="achieving",
                                 automation_comment=f"Automate {n}", overall_comment=f"Overall {n}")
                for n, request in enumerate(requests)])
    db.flush()
    summary = api.get(f"/api/performance/feedback/summary/{subject.id}", as_=exec_user).json
    assert summary["response_count"] == 501
    assert summary["areas"]["organisation"]["ratings"] == {"achieving": 501}
    assert len(summary["areas"]["automation"]["comments"]) == 500 and len(summary["overall_comments"]) == 500
