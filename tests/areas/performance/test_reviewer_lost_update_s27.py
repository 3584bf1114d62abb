"""Session 27: a review in review (the self-assessment submitted, waiting on its reviewer) whose reviewer then loses
`performance:update` through an admin's permission change (their override, their access level's matrix cell, a change
of access level: admin.service_permissions.permissions_moved -> performance's `reviewers_lost_access`). The manager's
alerts counted it (session 26) but nobody was told: now the one who rates it instead is told once, as a submission to
such a reviewer tells them (`review_submitted`: the first reader among the person's direct and squad manager), one
notice per manager whatever the number of reviews and reviewers, in a fixed number of statements."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.factories import grant, make_squad, make_user, override_permissions, save_matrix

from .factories import ask_feedback, make_cycle

SUBMITTED = "review_submitted"


def _told(db, user):
    db.expire_all()
    return db.execute(select(Notification.resource_id, Notification.title, Notification.action_url)
                      .where(Notification.user_id == user.id, Notification.type == SUBMITTED)
                      .order_by(Notification.created_at, Notification.id)).all()


def _review(api, db, manager, cycle, person, reviewer, *, status="in_review") -> str:
    made = api.post("/api/performance/reviews", as_=manager,
                    json={"cycle_id": cycle.id, "user_id": person.id, "reviewer_id": reviewer.id})
    assert made.status == 201, made.json
    review_id = made.json["review"]["id"]
    for step in ("self_assessment", "in_review", "ready_for_review"):
        if status == "draft":
            break
        who = reviewer if step == "ready_for_review" else person
        moved = api.put(f"/api/performance/reviews/{review_id}", as_=who, json={"status": step})
        assert moved.status == 200, moved.json
        if step == status:
            break
    return review_id


def _waiting_on_a_lead(api, db, person_name):
    """In a new cycle, a manager's review of their report `person_name`, waiting in review on a lead: (cycle, manager,
    person, reviewer, review id)."""
    cycle = make_cycle(db)
    manager = make_user(db, access_level="manager")
    person = make_user(db, manager_id=manager.id, name=person_name)
    reviewer = make_user(db, access_level="lead")
    return cycle, manager, person, reviewer, _review(api, db, manager, cycle, person, reviewer)


def test_a_reviewer_who_loses_update_by_override_the_manager_is_told_once(api, db, exec_user):
    cycle = make_cycle(db, name="Q1 2026")
    manager = make_user(db, access_level="manager", name="Mona Manager")
    person = make_user(db, manager_id=manager.id, name="Sam Subject")
    reviewer = make_user(db, access_level="lead", name="Rita Reviewer")
    review_id = _review(api, db, manager, cycle, person, reviewer)
    assert [row[0] for row in _told(db, reviewer)] == [review_id]  # the submission told the reviewer
    assert _told(db, manager) == []
    override_permissions(api, exec_user, reviewer, performance="none")
    assert api.put(f"/api/performance/reviews/{review_id}", as_=reviewer,
                   json={"reviewer_notes": "Good"}).status in (403, 404)  # they can no longer rate it
    assert api.get("/api/performance/alerts", as_=manager).json["pending_reviews"] == 1
    assert _told(db, manager) == [(review_id, "Review to rate: Sam Subject (Q1 2026)",
                                   f"/performance/reviews/{review_id}")]
    assert len(_told(db, reviewer)) == 1 and _told(db, exec_user) == []  # the admin, the actor, is not told
    override_permissions(api, exec_user, reviewer, performance="none")  # nothing moved: nobody told again
    assert len(_told(db, manager)) == 1


def test_many_reviews_and_reviewers_by_a_matrix_cell_one_notice_per_manager(api, db, exec_user):
    cycle = make_cycle(db)
    squad_manager = make_user(db, access_level="manager", name="Sue Squad")
    squad = make_squad(db, manager_id=squad_manager.id)
    manager = make_user(db, access_level="manager", name="Mona Manager")
    other_manager = make_user(db, access_level="manager", name="Max Other")
    reviewers = [make_user(db, access_level="lead") for _ in range(3)]
    mine = [_review(api, db, manager, cycle, make_user(db, manager_id=manager.id), reviewer)
            for reviewer in reviewers]
    # no direct manager: the squad's manager rates it
    squads = _review(api, db, squad_manager, cycle, make_user(db, squad_id=squad.id), reviewers[0])
    # ready for review: still waiting on the reviewer side, which completes it
    ready = _review(api, db, other_manager, cycle, make_user(db, manager_id=other_manager.id), reviewers[1],
                    status="ready_for_review")
    # not submitted yet: whoever rates it is told on submission, not now
    _review(api, db, other_manager, cycle, make_user(db, manager_id=other_manager.id), reviewers[2],
            status="self_assessment")
    kept = make_user(db, access_level="lead")  # their own override keeps them rating
    grant(db, kept, "performance", "update")
    _review(api, db, manager, cycle, make_user(db, manager_id=manager.id), kept)
    save_matrix(api, exec_user, lead={"performance": "none"})
    told = _told(db, manager)
    assert told == [(told[0][0], "3 reviews to rate: their reviewer can no longer rate them", "/performance")]
    assert told[0][0] in mine
    assert _told(db, squad_manager) == [(squads, told_title(db, squads), f"/performance/reviews/{squads}")]
    assert [row[0] for row in _told(db, other_manager)] == [ready]
    assert api.get("/api/performance/alerts", as_=manager).json["pending_reviews"] == 3


def told_title(db, review_id):
    from chalicelib.areas.performance.models import Review, ReviewCycle
    from chalicelib.core.models import User

    name, cycle = db.execute(select(User.name, ReviewCycle.name).join(Review, Review.user_id == User.id)
                             .join(ReviewCycle, ReviewCycle.id == Review.cycle_id).where(Review.id == review_id)).one()
    return f"Review to rate: {name} ({cycle})"


def test_a_manager_who_is_the_reviewer_or_the_person_is_not_told(api, db, exec_user):
    cycle = make_cycle(db)
    manager = make_user(db, access_level="manager")
    person = make_user(db, manager_id=manager.id)
    review_id = _review(api, db, manager, cycle, person, manager)  # the manager rates it themselves
    override_permissions(api, exec_user, manager, performance="none")
    assert [row[0] for row in _told(db, manager)] == [review_id]  # the submission only


def test_the_same_statements_for_one_and_many_reviews(api, db, exec_user, driver_statements, aws):
    counts = []
    for level, size in (("lead", 1), ("employee", 5)):
        cycle = make_cycle(db)
        managers = [make_user(db, access_level="manager") for _ in range(size)]
        for manager in managers:
            for _ in range(2):
                _review(api, db, manager, cycle, make_user(db, manager_id=manager.id),
                        make_user(db, access_level=level))
        statements, answer = driver_statements(
            lambda level=level, email=exec_user.email: api.put(
                "/api/admin/permissions", as_=email, json={"matrix": {level: {"performance": "none"}}}))
        assert answer.status == 200, answer.json
        counts.append(len(statements))
        assert all(len(_told(db, manager)) == 1 for manager in managers)
    assert counts[0] == counts[1], counts


def test_the_hook_for_a_reviewer_kept_at_view(api, db):
    """update -> view: may still answer feedback, no longer rate. The admin area calls the hook for users who fell
    below update (its line `_fell_below("update")`, view before session 27); for one who fell below update, the hook tells the manager of
    the review and no requester of feedback (the reviewer can still give it)."""
    from chalicelib.areas.performance import service as performance_service
    from chalicelib.core.context import job_context

    cycle, manager, person, reviewer, review_id = _waiting_on_a_lead(api, db, "Pia Person")
    ask_feedback(api, manager, cycle, person, reviewer)
    grant(db, reviewer, "performance", "view")
    with job_context() as ctx:
        performance_service.reviewers_lost_access(ctx, [reviewer.id])
    assert _told(db, manager) == [(review_id, f"Review to rate: Pia Person ({cycle.name})",
                                   f"/performance/reviews/{review_id}")]
    db.expire_all()
    assert db.scalars(select(Notification.type).where(Notification.user_id == manager.id,
                                                      Notification.type == "feedback_request_cancelled")).all() == []


def test_a_reviewer_lowered_to_view_by_the_admin_the_manager_is_told_and_no_feedback_requester(api, db, exec_user):
    """The admin area calls the hook for users whose performance level fell below update (its line
    `_fell_below("update")`, session 27): a reviewer lowered to view may still give feedback, not rate."""
    cycle, manager, person, reviewer, review_id = _waiting_on_a_lead(api, db, "Vic View")
    ask_feedback(api, manager, cycle, person, reviewer)
    override_permissions(api, exec_user, reviewer, performance="view")
    assert _told(db, manager) == [(review_id, f"Review to rate: Vic View ({cycle.name})",
                                   f"/performance/reviews/{review_id}")]
    db.expire_all()
    assert db.scalars(select(Notification.type).where(Notification.user_id == manager.id,
                                                      Notification.type == "feedback_request_cancelled")).all() == []


def test_a_reviewer_deactivated_the_manager_is_told_of_the_review_waiting(api, db, exec_user):
    """A reviewer who leaves (deactivated by an admin) leaves their reviews in review waiting as one who lost
    performance:update does: the manager who now rates them is told once (session 27; nobody was)."""
    cycle, manager, person, reviewer, review_id = _waiting_on_a_lead(api, db, "Lee Left")
    left = api.put(f"/api/admin/users/{reviewer.id}", as_=exec_user, json={"is_active": False})
    assert left.status == 200, left.json
    assert _told(db, manager) == [(review_id, f"Review to rate: Lee Left ({cycle.name})",
                                   f"/performance/reviews/{review_id}")]
