"""The performance area's leaf module: scope clauses, load-or-404 helpers, record builders and read queries.
The services import it, never the reverse.

Scoping (document 2, Performance; docs/decisions/performance.md):
- cycles: executives see every cycle; everyone else open and closed ones only (`visible_cycles`);
- reviews: head and executive all; a manager the reviews of their team (squad members and direct reports),
  their own, and those they review; employee and lead their own and those they review (`visible`);
- people a caller may act on as a subject (create a review, request feedback, read history or a feedback
  summary): `reach(principal)`: all for head and executive, the team and self for a manager, self otherwise.
"""
from __future__ import annotations

from sqlalchemy import case, func, or_, select
from sqlalchemy.orm import aliased

from chalicelib.core.models import User
from chalicelib.core.query import LIST_LIMIT, first_per, in_scope, visible_row
from chalicelib.core.readers import readers, seen_by
from chalicelib.core.scoping import is_manager, sees_all, team_user_ids
from chalicelib.core.serialize import flag, row_dict, value_out

from .models import (FeedbackRequest, Review, ReviewCycle, ReviewGoal, ReviewKpiRating, ReviewTemplate,
                     ReviewTemplateAssignment, ReviewTemplateItem)

CYCLE_FIELDS = ("id", "type", "name", "period_start", "period_end", "due_date", "status", "created_by", "created_at",
                "updated_at")
REVIEW_FIELDS = ("id", "cycle_id", "user_id", "reviewer_id", "status", "kpi_pass_count", "kpi_total_count",
                 "strengths", "growth_areas", "discussion_topics", "reviewer_notes", "action_items", "completed_at",
                 "created_at", "updated_at")
GOAL_FIELDS = ("id", "review_id", "goal", "success_measures", "support_needed", "status", "sort_order")
KPI_FIELDS = ("id", "area", "label", "rating", "notes", "sort_order", "template_item_id")


def visible_cycles(principal):
    """WHERE clause of the cycles the principal may read (None: all): non-executives see open and closed."""
    if principal.access_level == "executive":
        return None
    return ReviewCycle.status.in_(("open", "closed"))


def reach(principal):
    """A select of the user ids the principal may act on as a review or feedback subject (None: everyone)."""
    if sees_all(principal):
        return None
    if is_manager(principal):
        return team_user_ids(principal)
    return select(User.id).where(User.id == principal.id)


def visible(principal):
    """WHERE clause of the reviews the principal may see (None: all)."""
    if sees_all(principal):
        return None
    subjects = reach(principal)
    return or_(Review.user_id.in_(subjects), Review.reviewer_id == principal.id)


def in_reach(db, principal, user_id: str) -> bool:
    """Whether `user_id` is a user within the principal's reach (one query). Active or not: a former employee's
    history and feedback summary stay readable; the writes that need an active user check that first."""
    stmt = select(User.id).where(User.id == user_id)
    scope = reach(principal)
    if scope is not None:
        stmt = stmt.where(User.id.in_(scope))
    return db.scalar(stmt) is not None


def load_cycle(ctx, cycle_id: str, *, any_status: bool = False) -> ReviewCycle:
    scope = None if any_status else visible_cycles(ctx.principal)
    return visible_row(ctx.db, ReviewCycle, cycle_id, scope, "Review cycle")


def load_review(ctx, review_id: str) -> Review:
    return visible_row(ctx.db, Review, review_id, visible(ctx.principal), "Review")


def review_seen_by(db, review_id: str, principals) -> set[str]:
    """Which of these principals see the review: its scope clause as each of them, in one statement (a
    UNION ALL; none for no principals). The notes area asks it of the users a note mentions."""
    return seen_by(db, Review, review_id, principals, visible)


def review_readers(db, review_id: str, user_ids) -> set[str]:
    """Which of these users may read the review: active, `performance:view` and the review in their scope
    (`visible`), two statements at most whatever their number (core.readers.readers). A notice that names the
    review goes only to them."""
    return readers(db, Review, review_id, user_ids, tool="performance", scope_of=visible)


def performance_viewers(db, user_ids) -> set[str]:
    """Which of these users are active and hold `performance:view`, in one statement whatever their number
    (core.auth.principals_of). A feedback request is in the scope of its reviewer and of whoever asked
    (`load_feedback_request`), so for them this is the whole check: a notice that names the request's subject
    and cycle and links to the feedback page goes only to them (session 26)."""
    from chalicelib.core.auth import principals_of

    ids = [user_id for user_id in dict.fromkeys(user_ids) if user_id]
    return {user_id for user_id, principal in principals_of(db, ids).items() if principal.can("performance", "view")}


def load_template(ctx, template_id: str) -> ReviewTemplate:
    return visible_row(ctx.db, ReviewTemplate, template_id, None, "Review template")


def load_feedback_request(ctx, request_id: str) -> FeedbackRequest:
    """A feedback request is seen by its reviewer, by whoever may act on its subject and by whoever asked."""
    principal = ctx.principal
    scope = None
    if not sees_all(principal):
        scope = or_(FeedbackRequest.reviewer_id == principal.id, FeedbackRequest.requested_by == principal.id,
                    FeedbackRequest.subject_id.in_(reach(principal)))
    return visible_row(ctx.db, FeedbackRequest, request_id, scope, "Feedback request")


# ---------------------------------------------------------------- cycles

def cycle_record(cycle: ReviewCycle) -> dict:
    return row_dict(cycle, CYCLE_FIELDS)


def cycle_closed(db, cycle_id: str) -> bool:
    """Whether the cycle is closed, its row read FOR SHARE: a closed cycle's reviews and feedback are fixed until it
    is reopened (session 31), so a close waits for the writes under way (its UPDATE takes the row lock) and a write
    waiting for a close sees it; writes of several reviews or requests of one cycle do not wait for each other."""
    return db.scalar(select(ReviewCycle.status).where(ReviewCycle.id == cycle_id).with_for_update(read=True)) == "closed"


def cycle_progress(db, cycle_id: str, scope) -> dict:
    """Review counts of the cycle by status (one grouped statement), within the caller's review scope."""
    stmt = in_scope(select(Review.status, func.count()).where(Review.cycle_id == cycle_id), scope)
    counts = dict(db.execute(stmt.group_by(Review.status)).all())
    out = {status: counts.get(status, 0) for status in ("completed", "draft", "self_assessment", "in_review",
                                                         "ready_for_review")}
    out["total"] = sum(counts.values())
    return out


# ---------------------------------------------------------------- templates

def template_records(db, templates) -> list[dict]:
    """Template records with items and assigned user ids (at most LIST_LIMIT a template, by id): two statements
    for the whole list."""
    templates = list(templates)
    ids = [t.id for t in templates]
    items: dict[str, list[dict]] = {}
    users: dict[str, list[str]] = {}
    if ids:
        for item in db.scalars(select(ReviewTemplateItem).where(ReviewTemplateItem.template_id.in_(ids))
                               .order_by(ReviewTemplateItem.sort_order, ReviewTemplateItem.id)):
            items.setdefault(item.template_id, []).append(
                row_dict(item, ("id", "area", "label", "is_mandatory", "sort_order"), flags=("is_mandatory",)))
        # at most LIST_LIMIT user ids a template (decisions.md section 4: assignments add up, call after call),
        # by user id: one statement
        assigned = first_per(select(ReviewTemplateAssignment.template_id, ReviewTemplateAssignment.user_id)
                             .where(ReviewTemplateAssignment.template_id.in_(ids)),
                             ReviewTemplateAssignment.template_id, ReviewTemplateAssignment.user_id)
        for template_id, user_id in db.execute(assigned.order_by(*assigned.selected_columns)):
            users.setdefault(template_id, []).append(user_id)
    return [{**row_dict(t, ("id", "name", "description", "created_at", "updated_at")),
             "items": items.get(t.id, []), "user_ids": users.get(t.id, [])} for t in templates]


# ---------------------------------------------------------------- reviews

Subject = aliased(User)
Reviewer = aliased(User)


def review_select():
    return (select(Review, Subject.name, Reviewer.name, ReviewCycle.name, ReviewCycle.type)
            .join(ReviewCycle, ReviewCycle.id == Review.cycle_id)
            .outerjoin(Subject, Subject.id == Review.user_id)
            .outerjoin(Reviewer, Reviewer.id == Review.reviewer_id))


def review_record(row) -> dict:
    review, user_name, reviewer_name, cycle_name, cycle_type = row
    out = row_dict(review, REVIEW_FIELDS)
    out.update(user_name=user_name, reviewer_name=reviewer_name, cycle_name=cycle_name, cycle_type=cycle_type,
               kpi_passed=None if review.kpi_passed is None else flag(review.kpi_passed))
    return out


def review_row(db, review_id: str):
    return db.execute(review_select().where(Review.id == review_id)).one()


def kpi_records(db, review_ids) -> dict[str, list[dict]]:
    ids = list(review_ids)
    found: dict[str, list[dict]] = {review_id: [] for review_id in ids}
    if ids:
        for kpi in db.scalars(select(ReviewKpiRating).where(ReviewKpiRating.review_id.in_(ids))
                              .order_by(ReviewKpiRating.sort_order, ReviewKpiRating.id)):
            found[kpi.review_id].append({**row_dict(kpi, KPI_FIELDS), "is_mandatory": flag(kpi.is_mandatory)})
    return found


def goal_records(db, review_ids) -> dict[str, list[dict]]:
    ids = list(review_ids)
    found: dict[str, list[dict]] = {review_id: [] for review_id in ids}
    if ids:
        for goal in db.scalars(select(ReviewGoal).where(ReviewGoal.review_id.in_(ids))
                               .order_by(ReviewGoal.sort_order, ReviewGoal.created_at, ReviewGoal.id)):
            found[goal.review_id].append(row_dict(goal, GOAL_FIELDS))
    return found


def history_rows(db, user_id: str, scope):
    """The user's completed reviews, newest first, with goal counts (one statement)."""
    goals = (select(ReviewGoal.review_id.label("review_id"), func.count().label("goal_count"),
                    func.count(case((ReviewGoal.status == "completed", 1))).label("done"),
                    func.count(case((ReviewGoal.status == "not_completed", 1))).label("not_done"))
             .group_by(ReviewGoal.review_id).subquery())
    stmt = (select(Review, ReviewCycle, goals.c.goal_count, goals.c.done, goals.c.not_done)
            .join(ReviewCycle, ReviewCycle.id == Review.cycle_id)
            .outerjoin(goals, goals.c.review_id == Review.id)
            .where(Review.user_id == user_id, Review.status == "completed")
            .order_by(Review.completed_at.desc().nulls_last(), Review.id).limit(LIST_LIMIT))
    out = []
    for review, cycle, goal_count, done, not_done in db.execute(in_scope(stmt, scope)):
        out.append({"review_id": review.id, "cycle_id": cycle.id, "cycle_name": cycle.name, "cycle_type": cycle.type,
                    "period_start": value_out(cycle.period_start), "period_end": value_out(cycle.period_end),
                    "completed_at": value_out(review.completed_at), "kpi_pass_count": review.kpi_pass_count,
                    "kpi_total_count": review.kpi_total_count, "kpi_passed": flag(review.kpi_passed),
                    "goal_count": goal_count or 0, "goals_completed": done or 0, "goals_not_completed": not_done or 0})
    return out


def feedback_request_select():
    return (select(FeedbackRequest, ReviewCycle.name, User.name)
            .join(ReviewCycle, ReviewCycle.id == FeedbackRequest.cycle_id)
            .outerjoin(User, User.id == FeedbackRequest.subject_id))


def feedback_request_record(row) -> dict:
    request, cycle_name, subject_name = row
    return {**row_dict(request, ("id", "cycle_id", "subject_id", "reviewer_id", "requested_by", "due_date", "status",
                                 "submitted_at", "created_at")),
            "cycle_name": cycle_name, "subject_name": subject_name}

