"""Factories for the performance area: plain functions that add, flush and return."""
from __future__ import annotations

import itertools
from datetime import date, datetime, timezone

from chalicelib.areas.performance.models import (Review, ReviewCycle, ReviewGoal, ReviewKpiRating, ReviewTemplate,
                                                 ReviewTemplateAssignment, ReviewTemplateItem)

_seq = itertools.count(1)


def make_cycle(db, **overrides) -> ReviewCycle:
    values = {"type": "quarterly", "name": f"Cycle {next(_seq)}", "period_start": date(2026, 1, 1),
              "period_end": date(2026, 3, 31), "status": "open"}
    values.update(overrides)
    cycle = ReviewCycle(**values)
    db.add(cycle)
    db.flush()
    return cycle


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
