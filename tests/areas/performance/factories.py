"""Factories for the performance area: plain functions that add, flush and return."""
from __future__ import annotations

import itertools
from datetime import date, datetime, timezone

from chalicelib.areas.performance.models import (Review, ReviewCycle, ReviewGoal, ReviewKpiRating, ReviewTemplate,
                                                 ReviewTemplateAssignment, ReviewTemplateItem)
from tests.factories import add_row, make_squad, make_user

_seq = itertools.count(1)


def make_cycle(db, **overrides) -> ReviewCycle:
    values = {"type": "quarterly", "name": f"Cycle {next(_seq)}", "period_start": date(2026, 1, 1),
              "period_end": date(2026, 3, 31), "status": "open"}
    return add_row(db, ReviewCycle, values, overrides)


def make_template(db, user_ids=(), items=(("Delivery", "Ships on time", True), ("Craft", "Code quality", False))):
    template = ReviewTemplate(name=f"Template {next(_seq)}")
    db.add(template)
    db.flush()
    made = []
    for index, (area, label, mandatory) in enumerate(items):
        item = ReviewTemplateItem(template_id=template.id, area=area, label=label, is_mandatory=mandatory,
                                  sort_order=index)
        db.add(item)
        made.append(item)
    db.add_all([ReviewTemplateAssignment(user_id=user_id, template_id=template.id) for user_id in user_ids])
    db.flush()
    return template, made


def make_review(db, *, cycle, user, reviewer=None, status="draft", kpis=(), goals=(), **overrides) -> Review:
    if isinstance(overrides.get("completed_at"), date) and not isinstance(overrides["completed_at"], datetime):
        day = overrides["completed_at"]
        overrides["completed_at"] = datetime(day.year, day.month, day.day, 12, tzinfo=timezone.utc)
    review = Review(cycle_id=cycle.id, user_id=user.id, reviewer_id=(reviewer or user).id, status=status, **overrides)
    db.add(review)
    db.flush()
    for index, (item_id, rating) in enumerate(kpis):
        db.add(ReviewKpiRating(review_id=review.id, template_item_id=item_id, area="A", label=f"K{index}",
                               is_mandatory=False, rating=rating, sort_order=index))
    for index, (goal, goal_status) in enumerate(goals):
        db.add(ReviewGoal(review_id=review.id, goal=goal, status=goal_status, sort_order=index))
    db.flush()
    return review


def ask_feedback(api, asker, cycle, subject, reviewer) -> str:
    """`asker` asks `reviewer` for feedback about `subject` in `cycle` through the API (answered 201): answers the
    request's id."""
    made = api.post("/api/performance/feedback/requests", as_=asker,
                    json={"cycle_id": cycle.id, "subject_id": subject.id, "reviewer_id": reviewer.id})
    assert made.status == 201, made.json
    return made.json["request"]["id"]


def create_review(api, creator, cycle, person, reviewer=None) -> str:
    """`creator` creates `person`'s review in `cycle` through the API (its reviewer `reviewer`, the route's default
    when None), answered 201: answers the review's id."""
    body = {"cycle_id": cycle.id, "user_id": person.id}
    if reviewer is not None:
        body["reviewer_id"] = reviewer.id
    made = api.post("/api/performance/reviews", as_=creator, json=body)
    assert made.status == 201, made.json
    return made.json["review"]["id"]


def squad_review_team(db):
    """A cycle and, made in this order: a squad manager and their squad, a manager, a person reporting to the manager
    in the squad, an outsider manager and a lead to review. Answers (cycle, squad_manager, manager, person, outsider,
    reviewer)."""
    cycle = make_cycle(db)
    squad_manager = make_user(db, access_level="manager")
    squad = make_squad(db, manager_id=squad_manager.id)
    manager = make_user(db, access_level="manager")
    person = make_user(db, manager_id=manager.id, squad_id=squad.id)
    outsider = make_user(db, access_level="manager")
    reviewer = make_user(db, access_level="lead")
    return cycle, squad_manager, manager, person, outsider, reviewer


def manager_review(api, db):
    """In a new cycle, a manager's review of their report (created by the manager through the API, still a draft),
    a lead its reviewer: (cycle, manager, person, reviewer, review id)."""
    cycle = make_cycle(db)
    manager = make_user(db, access_level="manager")
    person = make_user(db, manager_id=manager.id)
    reviewer = make_user(db, access_level="lead")
    return cycle, manager, person, reviewer, create_review(api, manager, cycle, person, reviewer)
