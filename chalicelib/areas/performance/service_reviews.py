"""Reviews: list, create (KPI items copied from the user's template), detail with previous reviews and the
annual KPI aggregation, update with ratings and goals, the pass rule on completion, previous goals' outcomes,
history, my goals and delete (scope and reads are in queries.py).

Rules (document 2 and decisions.md section 9; the rest in docs/decisions/performance.md):
- a review is created only in an open cycle (400), for a user within the caller's reach (403), once per user
  and cycle (409); the reviewer defaults to the caller; another named reviewer must be active and hold
  performance:update (400 on reviewer_id, session 26), and is notified (`review_assigned`: the cycle and the
  review's link, which opens for them);
- statuses move one step forward, or one step back before completion; a jump is 409; a completed review is
  not changed any more (409), nor is any review of a closed cycle (409 until the cycle is reopened, session 31);
- the reviewed person alone (not the reviewer) may write the self-assessment (strengths, growth areas,
  discussion topics, goals) and move the review up to `in_review`; ratings, reviewer notes, action items and
  the last two steps (and the step back from `ready_for_review`, session 31) are the reviewer's or a manager-level
  caller's (403 otherwise), never the reviewed person's (even as its reviewer), and so are the outcomes of earlier
  goals; only a value that changes counts
  (a save-back carrying the reviewer's part unchanged is fine), and goals sent back unchanged are kept;
- the move self_assessment -> in_review tells the one who now rates it (`review_submitted`): the reviewer, or when
  they left, cannot rate (no performance:update) or are the reviewed person, the first reader among the person's
  manager and squad manager;
- on completion a KPI passes when rated `achieving` or `exceeding`; the review passes when at least 75% of its
  KPIs pass and every mandatory KPI passes (a review without KPIs passes);
- only a draft review can be deleted (400).
"""
from __future__ import annotations

from collections import Counter

from sqlalchemy import case, delete, literal, select, update

from chalicelib.core.errors import BadRequest, Conflict, Forbidden, NotFound, bad_field
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_rows, lock_row
from chalicelib.core.models import User
from chalicelib.core.query import LIST_LIMIT, in_scope

from .models import (PASSING_RATINGS, RATINGS, REVIEW_STATUSES, Review, ReviewCycle, ReviewGoal, ReviewKpiRating,
                     ReviewTemplateAssignment, ReviewTemplateItem)
from .queries import (cycle_closed, goal_records, history_rows, in_reach, kpi_records, load_cycle, load_review,
                      review_readers, review_record, review_row, review_select, visible)

REVIEWER_FIELDS = ("reviewer_notes", "action_items")
MANAGER_LEVELS = ("manager", "head", "executive")


def _active_user(ctx, user_id: str, field: str) -> None:
    if ctx.db.scalar(select(User.id).where(User.id == user_id, User.is_active.is_(True))) is None:
        raise bad_field(field, "must be an active user")


def review_passes(kpis: list[tuple[str | None, bool]]) -> tuple[int, int, bool]:
    """(pass count, total, passed) of (rating, is_mandatory) pairs: a KPI passes when rated achieving or
    exceeding; the review passes with at least 75% passing (4 * passed >= 3 * total, exact) and every
    mandatory KPI passing."""
    total = len(kpis)
    passing = [rating in PASSING_RATINGS for rating, _ in kpis]
    count = sum(passing)
    mandatory_ok = all(ok for ok, (_, mandatory) in zip(passing, kpis) if mandatory)
    return count, total, 4 * count >= 3 * total and mandatory_ok


# ---------------------------------------------------------------- reads

def list_reviews(ctx, query) -> list[dict]:
    """The reviews the caller may see (filters cycle_id, status), newest cycle first, then by person; three
    joins, one statement."""
    stmt = in_scope(review_select(), visible(ctx.principal))
    if query.cycle_id:
        stmt = stmt.where(Review.cycle_id == query.cycle_id)
    if query.status:
        stmt = stmt.where(Review.status == query.status)
    stmt = stmt.order_by(ReviewCycle.period_start.desc(), Review.created_at.desc(), Review.id).limit(LIST_LIMIT)
    return [review_record(row) for row in ctx.db.execute(stmt)]


def _previous_select(review: Review, cycle: ReviewCycle, *columns):
    """The reviews previous to this one (these columns of them): for an annual review, every completed quarterly
    review of the same person inside the annual period (at most 500); otherwise the person's latest completed
    review before this one. The detail's `previous_reviews` and the outcomes of earlier goals both use it."""
    stmt = (select(*columns).join(ReviewCycle, ReviewCycle.id == Review.cycle_id)
            .where(Review.user_id == review.user_id, Review.status == "completed", Review.id != review.id))
    if cycle.type == "annual":
        stmt = stmt.where(ReviewCycle.type == "quarterly", ReviewCycle.period_start >= cycle.period_start,
                          ReviewCycle.period_end <= cycle.period_end).order_by(ReviewCycle.period_start, Review.id)
        return stmt.limit(LIST_LIMIT)  # one review a cycle: as many as quarterly cycles in the year, at most 500
    # before it: its cycle starts earlier and ends no later (the year's annual review covering this quarter
    # is not before it)
    return (stmt.where(ReviewCycle.period_start < cycle.period_start, ReviewCycle.period_end <= cycle.period_end)
            .order_by(ReviewCycle.period_end.desc(), Review.completed_at.desc(), Review.id).limit(1))


def _previous_reviews(ctx, review: Review, cycle: ReviewCycle) -> tuple[list[dict], dict | None]:
    """For an annual review: every completed quarterly review of the same person inside the annual period, and
    the aggregation of their ratings per template item. Otherwise: the person's latest completed review before
    this one (its goals are the ones whose outcomes are recorded), and no aggregation. Three statements."""
    annual = cycle.type == "annual"
    rows = ctx.db.execute(_previous_select(review, cycle, Review.id, ReviewCycle.name, Review.reviewer_notes,
                                           Review.action_items)).all()
    ids = [row[0] for row in rows]
    kpis = kpi_records(ctx.db, ids)
    goals = goal_records(ctx.db, ids)
    previous = [{"review": {"id": rid, "cycle_name": name, "reviewer_notes": notes, "action_items": actions},
                 "kpi_ratings": [{"template_item_id": k["template_item_id"], "rating": k["rating"]} for k in kpis[rid]],
                 "goals": [{"id": g["id"], "goal": g["goal"], "status": g["status"]} for g in goals[rid]]}
                for rid, name, notes, actions in rows]
    if not annual:
        return previous, None
    counts: dict[str, Counter] = {}
    for rid in ids:
        for kpi in kpis[rid]:
            if kpi["template_item_id"] and kpi["rating"]:
                counts.setdefault(kpi["template_item_id"], Counter())[kpi["rating"]] += 1
    aggregation = {}
    for item_id, counter in counts.items():
        # the most frequent rating; a tie goes to the higher rating
        most = max(counter.items(), key=lambda pair: (pair[1], RATINGS.index(pair[0])))[0]
        aggregation[item_id] = {"ratings": dict(counter), "most_common": most}
    return previous, aggregation


def get_review(ctx, *, review_id: str) -> dict:
    review = load_review(ctx, review_id)
    cycle = ctx.db.get(ReviewCycle, review.cycle_id)
    previous, aggregation = _previous_reviews(ctx, review, cycle)
    return {"review": review_record(review_row(ctx.db, review.id)),
            "kpi_ratings": kpi_records(ctx.db, [review.id])[review.id],
            "goals": goal_records(ctx.db, [review.id])[review.id],
            "previous_reviews": previous, "kpi_aggregation": aggregation}


def history(ctx, *, user_id: str) -> list[dict]:
    """The person's completed reviews with pass results and goal outcomes (one statement after the check)."""
    if not in_reach(ctx.db, ctx.principal, user_id):
        raise NotFound("User not found")
    return history_rows(ctx.db, user_id, visible(ctx.principal))


def my_goals(ctx) -> dict:
    """The goals of the caller's most recent completed review: the one of the latest period (its cycle ending last),
    as `_previous_select` picks the review whose goals get outcomes; the one completed last among reviews of
    periods ending the same day (session 28: it was the one completed last, a late-completed older quarter)."""
    row = ctx.db.execute(select(Review.id, ReviewCycle.name).join(ReviewCycle, ReviewCycle.id == Review.cycle_id)
                         .where(Review.user_id == ctx.user_id, Review.status == "completed")
                         .order_by(ReviewCycle.period_end.desc(), Review.completed_at.desc().nulls_last(), Review.id)
                         .limit(1)).first()
    if row is None:
        return {"goals": [], "cycle_name": ""}
    return {"goals": goal_records(ctx.db, [row[0]])[row[0]], "cycle_name": row[1]}


# ---------------------------------------------------------------- writes

def create_review(ctx, *, data) -> dict:
    from chalicelib.core.auth import principals_of
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    try:
        cycle = load_cycle(ctx, data.cycle_id)
    except NotFound as exc:
        raise bad_field("cycle_id", "must be an open review cycle") from exc
    if cycle.status != "open":
        raise bad_field("cycle_id", "must be an open review cycle")
    _active_user(ctx, data.user_id, "user_id")
    if not in_reach(ctx.db, ctx.principal, data.user_id):
        raise Forbidden("You may not create a review for this user")
    reviewer_id = data.reviewer_id or ctx.user_id
    if reviewer_id != ctx.user_id:
        # someone else rates it: active and holding performance:update (rating is an update; one who can only
        # read it would be told and answered 403, and nobody else would hear: session 26). One statement.
        reviewer = principals_of(ctx.db, [reviewer_id]).get(reviewer_id)  # active users only
        if reviewer is None:
            raise bad_field("reviewer_id", "must be an active user")
        if not reviewer.can("performance", "update"):
            raise bad_field("reviewer_id", "must be someone who may rate reviews (performance:update)")
        _may_name_reviewer(ctx, data.user_id, reviewer_id)
    cycle = lock_row(ctx.db, ReviewCycle, cycle.id)  # two creates for the same person serialise: one 201, one 409
    if cycle is None or cycle.status != "open":  # closed (or deleted) while this request checked the rest
        raise bad_field("cycle_id", "must be an open review cycle")
    if ctx.db.scalar(select(Review.id).where(Review.cycle_id == cycle.id, Review.user_id == data.user_id)):
        raise Conflict("The user already has a review in this cycle")
    review = Review(cycle_id=cycle.id, user_id=data.user_id, reviewer_id=reviewer_id, status="draft",
                    created_by=ctx.user_id)
    ctx.db.add(review)
    ctx.db.flush()
    items = ctx.db.scalars(select(ReviewTemplateItem)
                           .join(ReviewTemplateAssignment,
                                 ReviewTemplateAssignment.template_id == ReviewTemplateItem.template_id)
                           .where(ReviewTemplateAssignment.user_id == data.user_id)
                           .order_by(ReviewTemplateItem.sort_order, ReviewTemplateItem.id)).all()
    insert_rows(ctx.db, ReviewKpiRating, [
        {"review_id": review.id, "template_item_id": item.id, "area": item.area, "label": item.label,
         "is_mandatory": item.is_mandatory, "sort_order": item.sort_order, "rating": None, "notes": None}
        for item in items])
    if reviewer_id != ctx.user_id:
        # the reviewer is active and holds performance:update (checked above), and a review is in its reviewer's
        # scope (queries.visible): the review the notice names and links opens for them (session 26)
        notify(ctx, user_id=reviewer_id, type="review_assigned", title=f"You were asked to review ({cycle.name})",
               resource_type="review", resource_id=review.id, action_url=f"/performance/reviews/{review.id}",
               actor_id=ctx.user_id)
    return review_record(review_row(ctx.db, review.id))


def _may_name_reviewer(ctx, user_id: str, reviewer_id: str) -> None:
    """On one's own review the reviewer is oneself (a manager-level colleague then judges) or one's manager (the
    direct manager or the squad's manager): naming a friendly colleague would let the reviewed person pick who
    rates them. A manager, head or executive creating someone else's review names any active user; an executive
    names anyone on their own too (docs/decisions/performance.md, "Reviewer choice"). 403 otherwise."""
    from chalicelib.core.models import Squad

    if user_id != ctx.user_id or reviewer_id == ctx.user_id or ctx.principal.access_level == "executive":
        return
    user = ctx.principal.user
    squad_manager = ctx.db.scalar(select(Squad.manager_id).where(Squad.id == user.squad_id)) if user.squad_id else None
    if reviewer_id not in (user.manager_id, squad_manager):
        raise Forbidden("On your own review the reviewer is you (the default) or your manager")


def _is_reviewer_side(ctx, review: Review) -> bool:
    """The reviewer, or a manager-level caller who sees the review; never the reviewed person, even when they
    are also its reviewer (an employee's own review defaults its reviewer to them): nobody rates themselves."""
    if ctx.user_id == review.user_id:
        return False
    return ctx.user_id == review.reviewer_id or ctx.principal.access_level in MANAGER_LEVELS


def _check_move(current: str, target: str) -> None:
    """One step forward or back (the caller refused a completed review already: it moves no more)."""
    if target == current:
        return
    step = REVIEW_STATUSES.index(target) - REVIEW_STATUSES.index(current)
    if step not in (1, -1):
        raise Conflict(f"A review moves one step at a time: {current} cannot move to {target}")


def _refuse_closed_cycle(ctx, review: Review) -> None:
    """409 when the review's cycle is closed: a closed cycle's reviews are fixed (session 31), as its contents are
    created in an open cycle only; the cycle is reopened (`closed` -> `open`) to change them. The cycle's row is read
    FOR SHARE (`cycle_closed`), so a close waits for the edits under way (its UPDATE takes the row lock) and an edit
    waiting for a close sees it; edits of several reviews of the cycle do not wait for each other."""
    if cycle_closed(ctx.db, review.cycle_id):
        raise Conflict("The review cycle is closed: reopen it to change its reviews")


def update_review(ctx, *, review_id: str, data) -> dict:
    load_review(ctx, review_id)
    review = lock_row(ctx.db, Review, review_id, missing="Review")
    if review.status == "completed":
        raise Conflict("A completed review cannot be changed")
    changes = data.changes()
    kpi_inputs = changes.pop("kpi_ratings", None)
    goal_inputs = changes.pop("goals", None)
    status = changes.pop("status", None)
    reviewer_side = _is_reviewer_side(ctx, review)
    # a save-back carries the reviewer's part as read: only a value that changes is a rating (session 25)
    rated = kpi_inputs and _changed_ratings(ctx, review.id, data.kpi_ratings)
    if not reviewer_side:
        if any(field in changes and changes[field] != getattr(review, field) for field in REVIEWER_FIELDS) or rated:
            raise Forbidden("Only the reviewer may rate KPIs or write reviewer notes and action items")
        # the reviewer side's steps: up to ready_for_review and completed, and back from ready_for_review (the
        # reviewed person moves the review up to in_review only; session 31: they took the reviewer's step back)
        if status != review.status and (status in ("ready_for_review", "completed")
                                        or (status is not None and review.status == "ready_for_review")):
            raise Forbidden("Only the reviewer may move a review past in_review or back from ready_for_review")
    goals = _changed_goals(ctx, review.id, data.goals) if goal_inputs is not None else None
    if (rated or goals is not None or (status is not None and status != review.status)
            or any(value != getattr(review, key) for key, value in changes.items())):
        # a closed cycle's reviews are fixed; a save-back that changes nothing is no change (session 25's rule)
        _refuse_closed_cycle(ctx, review)
    if status is not None:
        _check_move(review.status, status)
    for key, value in changes.items():
        setattr(review, key, value)  # an unchanged value is no UPDATE (nor updated_at)
    if rated:
        _write_ratings(ctx, rated)
    if goals is not None:
        _write_goals(ctx, review.id, goals)
    submitted = status == "in_review" and review.status == "self_assessment"  # a real move, not a no-op
    if status is not None and status != review.status:
        if status == "completed":
            kpis = ctx.db.execute(select(ReviewKpiRating.rating, ReviewKpiRating.is_mandatory)
                                  .where(ReviewKpiRating.review_id == review.id)).all()
            review.kpi_pass_count, review.kpi_total_count, review.kpi_passed = review_passes(
                [tuple(kpi) for kpi in kpis])
            review.completed_at = utcnow()
        review.status = status
    ctx.db.flush()
    if submitted:
        _tell_submitted(ctx, review)
    return review_record(review_row(ctx.db, review.id))


def _tell_submitted(ctx, review: Review) -> None:
    """After the move self_assessment -> in_review (the self-assessment is submitted), in the same unit of work:
    `review_submitted` to the one who now rates it. The reviewer when they read the review (active,
    performance:view, in scope), may rate it (performance:update, session 26) and are not the reviewed person;
    otherwise (they left, lost the right to rate, or nobody judges themselves) the first reader among the person's
    direct manager and their squad's manager. Nobody when that one is the caller, or none reads it
    (docs/decisions/performance.md, sessions 25, 26). One read of the names, managers and whether the reviewer
    rates, the readers check (two at most), then notify's."""
    from chalicelib.core.models import Squad
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify
    from chalicelib.core.permissions import holders_select

    squad_manager = select(Squad.manager_id).where(Squad.id == User.squad_id).scalar_subquery()
    cycle_name = select(ReviewCycle.name).where(ReviewCycle.id == review.cycle_id).scalar_subquery()
    # whether the reviewer may rate (performance:update), in the same statement: its own `users`, not the person's
    rater = (holders_select("performance", "update").where(User.id == review.reviewer_id).correlate(None).exists()
             if review.reviewer_id else literal(False))
    name, manager_id, squad_manager_id, cycle, reviewer_rates = ctx.db.execute(
        select(User.name, User.manager_id, squad_manager, cycle_name, rater).where(User.id == review.user_id)).one()
    reviewer = review.reviewer_id if reviewer_rates else None  # one who may only read it cannot rate it
    candidates = [user_id for user_id in dict.fromkeys((reviewer, manager_id, squad_manager_id))
                  if user_id and user_id != review.user_id]
    seen = review_readers(ctx.db, review.id, candidates) if candidates else set()
    told = next((user_id for user_id in candidates if user_id in seen), None)
    if told is None or told == ctx.user_id:
        return
    notify(ctx, user_id=told, type="review_submitted", title=f"Self-assessment submitted: {name} ({cycle})",
           resource_type="review", resource_id=review.id, action_url=f"/performance/reviews/{review.id}",
           actor_id=ctx.user_id)


def _changed_ratings(ctx, review_id: str, ratings) -> list:
    """The rating entries whose sent rating or notes differ from the stored ones (a field left out is unchanged);
    each entry names a KPI of this review (400 otherwise). One read of the stored ratings."""
    ids = [rating.id for rating in ratings]
    if len(set(ids)) != len(ids):
        raise bad_field("kpi_ratings", "names a KPI twice")
    stored = {row.id: row for row in ctx.db.execute(
        select(ReviewKpiRating.id, ReviewKpiRating.rating, ReviewKpiRating.notes)
        .where(ReviewKpiRating.id.in_(ids), ReviewKpiRating.review_id == review_id))}
    unknown = [index for index, rating_id in enumerate(ids) if rating_id not in stored]
    if unknown:
        raise BadRequest("kpi_ratings must name KPIs of this review",
                         details=[{"field": f"kpi_ratings.{index}.id", "message": "not a KPI of this review"}
                                  for index in unknown[:10]])
    return [rating for rating in ratings
            if any(getattr(rating, field) != getattr(stored[rating.id], field)
                   for field in ("rating", "notes") if field in rating.model_fields_set)]


def _write_ratings(ctx, ratings) -> None:
    """These rating entries (checked by `_changed_ratings`): one UPDATE for all of them."""
    ids = [rating.id for rating in ratings]
    values = {}
    sent = [rating.model_fields_set for rating in ratings]
    if any("rating" in fields for fields in sent):
        values["rating"] = case({r.id: r.rating for r, f in zip(ratings, sent) if "rating" in f},
                                value=ReviewKpiRating.id, else_=ReviewKpiRating.rating)
    if any("notes" in fields for fields in sent):
        values["notes"] = case({r.id: r.notes for r, f in zip(ratings, sent) if "notes" in f},
                               value=ReviewKpiRating.id, else_=ReviewKpiRating.notes)
    if values:
        ctx.db.execute(update(ReviewKpiRating).where(ReviewKpiRating.id.in_(ids)).values(values)
                       .execution_options(synchronize_session=False))


def _changed_goals(ctx, review_id: str, goals) -> list[tuple] | None:
    """The sent goals as (goal, measures, support, sort order) when they differ from the stored ones (in the order
    read), else None: a save-back keeps the goals and their ids (session 25). One read."""
    sent = [(goal.goal, goal.success_measures, goal.support_needed,
             index if goal.sort_order is None else goal.sort_order) for index, goal in enumerate(goals)]
    stored = ctx.db.execute(select(ReviewGoal.goal, ReviewGoal.success_measures, ReviewGoal.support_needed,
                                   ReviewGoal.sort_order).where(ReviewGoal.review_id == review_id)
                            .order_by(ReviewGoal.sort_order, ReviewGoal.created_at, ReviewGoal.id)).all()
    return None if [tuple(row) for row in stored] == sent else sent


def _write_goals(ctx, review_id: str, sent: list[tuple]) -> None:
    """The goals replaced by `sent` (`_changed_goals`): a DELETE and an INSERT."""
    ctx.db.execute(delete(ReviewGoal).where(ReviewGoal.review_id == review_id)
                   .execution_options(synchronize_session=False))
    insert_rows(ctx.db, ReviewGoal, [
        {"review_id": review_id, "goal": goal, "success_measures": measures, "support_needed": support,
         "status": None, "sort_order": sort_order} for goal, measures, support, sort_order in sent])


def record_previous_goals(ctx, *, review_id: str, data) -> dict:
    """Outcomes of goals set in the reviews the detail's `previous_reviews` names for this one (the person's
    earlier completed reviews, `_previous_select`; 400 for any other goal, session 25); one UPDATE."""
    load_review(ctx, review_id)
    review = lock_row(ctx.db, Review, review_id, missing="Review")  # a completion at the same moment is seen (409), as update_review
    if review.status == "completed":
        raise Conflict("A completed review cannot be changed")
    if not _is_reviewer_side(ctx, review):  # the reviewed person does not grade their own goals
        raise Forbidden("Only the reviewer may record the outcomes of earlier goals")
    outcomes = {outcome.goal_id: outcome.status for outcome in data.outcomes}
    stored = {}
    if outcomes:
        # a later, unfinished or any other review of the person is not earlier: its goals are not graded here
        previous = _previous_select(review, ctx.db.get(ReviewCycle, review.cycle_id), Review.id).subquery()
        stored = dict(ctx.db.execute(select(ReviewGoal.id, ReviewGoal.status).where(
            ReviewGoal.id.in_(list(outcomes)), ReviewGoal.review_id.in_(select(previous.c.id)))).all())
    unknown = [index for index, outcome in enumerate(data.outcomes) if outcome.goal_id not in stored]
    if unknown:
        raise BadRequest("outcomes must name goals of this person's earlier reviews",
                         details=[{"field": f"outcomes.{index}.goal_id", "message": "not a goal of an earlier review"}
                                  for index in unknown[:10]])
    changed = {goal_id: status for goal_id, status in outcomes.items() if stored[goal_id] != status}
    if changed:  # outcomes sent back as stored change nothing, in a closed cycle too (session 31's review)
        _refuse_closed_cycle(ctx, review)
        ctx.db.execute(update(ReviewGoal).where(ReviewGoal.id.in_(list(changed)))
                       .values(status=case(changed, value=ReviewGoal.id))
                       .execution_options(synchronize_session=False))
    return {"ok": True}


def delete_review(ctx, *, review_id: str) -> None:
    from chalicelib.areas.notes import service as notes_service  # another area: imported lazily

    load_review(ctx, review_id)
    review = lock_row(ctx.db, Review, review_id, missing="Review")
    if review.status != "draft":
        raise BadRequest("Only a draft review can be deleted")
    notes_service.records_deleted(ctx.db, "review", [review.id])  # its notes go with it (session 23)
    ctx.db.delete(review)
    ctx.db.flush()
