"""What a reviewer's loss of access leaves behind: the admin area's batch hook `reviewers_lost_access`, called by
admin.service_permissions.permissions_moved with the users whose effective performance level fell (session 26).

- Feedback requests they can no longer answer (`performance:view` lost): each requester is told once
  (`service_feedback.user_deactivated`, left=False).
- Reviews in review (`in_review`, the self-assessment submitted, or `ready_for_review`) they can no longer rate
  (`performance:update` lost): the one who rates them instead is told once (`review_submitted`; session 27). That is
  who a submission to such a reviewer tells (`service_reviews._tell_submitted`) and whose alerts count the review:
  the first reader among the reviewed person's direct manager and squad manager, never the reviewed person nor the
  reviewer who lost the right; the admin who made the change (the actor) is left out. One notice per recipient
  whatever the number of reviews and reviewers: the person and cycle for one review, the count otherwise.
  A review not submitted yet is told on its submission. A reviewer deactivated (`reviewer_left`, the admin's
  deactivation hook) leaves their reviews waiting alike: the same notice.
Each part costs a fixed number of statements whatever the number of users, reviews and recipients.
"""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.models import User

from .models import Review, ReviewCycle
from .queries import visible
from .service_feedback import user_deactivated

WAITING_ON_REVIEWER = ("in_review", "ready_for_review")


def reviewers_lost_access(ctx, user_ids) -> None:
    """After an admin write that lowered these users' effective performance level (`user_ids`: a list or a SELECT
    of ids): the requesters of the feedback they can no longer give are told (`user_deactivated`, left=False: only
    reviewers now without `performance:view` count; "can no longer give", not "left"; session 26), and whoever now
    rates the reviews in review they can no longer rate (`reviews_left_unrated`: only reviewers now without
    `performance:update` count; session 27). Each part checks the permission it needs, so the hook may be called
    for users who fell below view or below update."""
    user_deactivated(ctx, user_ids, left=False)
    reviews_left_unrated(ctx, user_ids)


def reviewer_left(ctx, user_id: str) -> None:
    """After an admin deactivated this user (admin.update_user): the requesters of the feedback they can no longer
    give are told (`user_deactivated`, session 25), and whoever now rates the reviews in review waiting on them
    (`reviews_left_unrated`, left; session 27: nobody was told)."""
    user_deactivated(ctx, user_id)
    reviews_left_unrated(ctx, [user_id], left=True)


def reviews_left_unrated(ctx, user_ids, *, left: bool = False) -> None:
    """`review_submitted` to whoever now rates the reviews waiting on these reviewers (in review, or ready for
    review), who are active and no longer hold `performance:update` (`left`: who were deactivated): the first reader (active, `performance:view`,
    the review in their scope) among the reviewed person's direct manager and squad manager, other than the
    reviewed person, the reviewer and the actor. One read of the reviews with their people and cycle, the readers
    check (core.readers.rows_readers: two statements at most), then notify_many's: a fixed number whatever the
    number of reviews."""
    from chalicelib.core.models import Squad
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify
    from chalicelib.core.permissions import holders_select
    from chalicelib.core.readers import rows_readers

    # still active and without performance:update now (one who only reads a review cannot rate it); `left`: the
    # reviewers deactivated (reviewer_left)
    unable = (select(User.id).where(User.id.in_(user_ids), User.is_active.is_(False)) if left else
              select(User.id).where(User.id.in_(user_ids), User.is_active.is_(True),
                                    User.id.not_in(holders_select("performance", "update").correlate(None))))
    squad_manager = select(Squad.manager_id).where(Squad.id == User.squad_id).scalar_subquery()
    rows = ctx.db.execute(
        select(Review.id, Review.reviewer_id, Review.user_id, User.manager_id, squad_manager, User.name,
               ReviewCycle.name)
        .join(User, User.id == Review.user_id)
        .join(ReviewCycle, ReviewCycle.id == Review.cycle_id)
        .where(Review.reviewer_id.in_(unable), Review.status.in_(WAITING_ON_REVIEWER),
               Review.reviewer_id != Review.user_id)  # the person as their own reviewer: the manager was told
        .order_by(Review.id)).all()
    if not rows:
        return
    candidates = {review_id: [user_id for user_id in dict.fromkeys((manager_id, squad_manager_id))
                              if user_id and user_id not in (person_id, reviewer_id)]
                  for review_id, reviewer_id, person_id, manager_id, squad_manager_id, _, _ in rows}
    seen = rows_readers(ctx.db, Review, {review_id: set(ids) for review_id, ids in candidates.items() if ids},
                        tool="performance", scope_of=visible)
    waiting: dict[str, list] = {}  # recipient -> their reviews, in id order
    for review_id, _, _, _, _, name, cycle in rows:
        told = next((user_id for user_id in candidates[review_id] if user_id in seen.get(review_id, ())), None)
        if told is not None and told != ctx.user_id:
            waiting.setdefault(told, []).append((review_id, name, cycle))
    if not waiting:
        return
    notify_many(ctx, [_notice(ctx, recipient, reviews) for recipient, reviews in waiting.items()])


def _notice(ctx, recipient: str, reviews: list) -> dict:
    """`review_submitted` naming the person and cycle and linking the review when it is one, the count otherwise."""
    review_id, name, cycle = reviews[0]
    one = len(reviews) == 1
    return {"user_id": recipient, "type": "review_submitted", "resource_type": "review", "resource_id": review_id,
            "actor_id": ctx.user_id,
            "title": f"Review to rate: {name} ({cycle})" if one
            else f"{len(reviews)} reviews to rate: their reviewer can no longer rate them",
            "action_url": f"/performance/reviews/{review_id}" if one else "/performance"}
