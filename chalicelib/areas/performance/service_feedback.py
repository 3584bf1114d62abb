"""Peer feedback (requests, bulk requests, responses, the anonymised summary) and the performance alerts.

- A request names an open cycle (400), a subject within the caller's reach (403) and an active reviewer other
  than the subject holding `performance:view`, which answering needs (400 on reviewer_id, session 26); the same
  reviewer asked twice about a subject in a cycle is 409. The reviewer is notified (`feedback_requested`: the
  subject, the cycle and the feedback page's link, which opens for them).
- Bulk requests ask the subject's peers (document 2): an employee or lead's squad peers; a manager's fellow
  managers and direct reports; a head or executive's fellow heads and the direct reports who are managers; only
  those holding `performance:view` (session 26), and `total_peers` counts them. Peers asked already are skipped:
  `{created, total_peers}`.
- A response names a request the caller sees (400 naming `request_id` otherwise, a hidden request as a missing
  one); only the requested reviewer responds (403), once (409), while the cycle is not closed (409: a closed cycle's
  feedback is fixed until it is reopened, and its pending requests are neither listed to the reviewer nor counted
  in their alerts; session 31; nor are those about a person who left, round 2); the request becomes `submitted`; the
  answer is the response record (its id, the request, the ratings and comments: no reviewer, no time).
- A deactivated reviewer's pending requests stay pending; each requester is told once
  (`feedback_request_cancelled`, `user_deactivated`); so are they when an admin's permission change leaves reviewers
  without `performance:view` (`user_deactivated(..., left=False)`, session 26).
- The summary (manager access level or above, subject within reach) aggregates submitted responses: counts per
  rating per area and the comments, shuffled; it never carries a reviewer, a request, a time or an order.
"""
from __future__ import annotations

import secrets
from functools import cache

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import aliased

from chalicelib.core.errors import Conflict, Forbidden, NotFound, bad_field
from chalicelib.core.ids import new_id, utcnow
from chalicelib.core.locks import insert_ignore, lock_row
from chalicelib.core.models import User
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.serialize import row_dict

from .models import FEEDBACK_AREAS, FEEDBACK_COMMENTS, FeedbackRequest, FeedbackResponse, Review, ReviewCycle
from .queries import (cycle_closed, feedback_request_record, feedback_request_select, in_reach, load_cycle,
                      load_feedback_request, performance_viewers)

MINIMUM_RESPONSES = 1  # document 2: `minimum_required: 1`
FEEDBACK_RESPONSE_FIELDS = ("id", "request_id", *(f"{area}_rating" for area in FEEDBACK_AREAS),
                            *(f"{area}_comment" for area in FEEDBACK_COMMENTS), "overall_comment")
_random = secrets.SystemRandom()


def _open_cycle(ctx, cycle_id: str) -> ReviewCycle:
    try:
        cycle = load_cycle(ctx, cycle_id)
    except NotFound as exc:
        raise bad_field("cycle_id", "must be an open review cycle") from exc
    if cycle.status != "open":
        raise bad_field("cycle_id", "must be an open review cycle")
    return cycle


def _subject(ctx, subject_id: str) -> User:
    subject = ctx.db.scalar(select(User).where(User.id == subject_id, User.is_active.is_(True)))
    if subject is None:
        raise bad_field("subject_id", "must be an active user")
    if not in_reach(ctx.db, ctx.principal, subject_id):
        raise Forbidden("You may not request feedback about this user")
    return subject


def _notice(ctx, reviewer_id: str, subject: User, cycle: ReviewCycle, request_id: str) -> dict:
    """`feedback_requested`, naming the subject and the cycle and linking the feedback page: every reviewer asked
    holds `performance:view` (the single request checks it, the bulk one asks only such peers: session 26), so the
    page opens for them."""
    return {"user_id": reviewer_id, "type": "feedback_requested", "resource_type": "feedback_request",
            "resource_id": request_id, "actor_id": ctx.user_id,
            "title": f"Feedback requested about {subject.name} ({cycle.name})", "action_url": "/performance/feedback"}


def list_requests(ctx) -> list[dict]:
    """Pending requests assigned to the caller, soonest due first (one statement); those of a closed cycle, which
    cannot be answered until it is reopened, are left out (session 31), and so are those about a person who left
    (their review waits on nobody, nor does the feedback about them; session 31, round 2)."""
    stmt = (feedback_request_select()  # the cycle and the subject (never null: subject_id is NOT NULL) are joined
            .where(FeedbackRequest.reviewer_id == ctx.user_id, FeedbackRequest.status == "pending",
                   ReviewCycle.status != "closed", User.is_active.is_(True))
            .order_by(FeedbackRequest.due_date.asc().nulls_last(), FeedbackRequest.created_at, FeedbackRequest.id)
            .limit(LIST_LIMIT))
    return [feedback_request_record(row) for row in ctx.db.execute(stmt)]


def create_request(ctx, *, data) -> dict:
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    cycle = _open_cycle(ctx, data.cycle_id)
    subject = _subject(ctx, data.subject_id)
    if data.reviewer_id == subject.id:
        raise bad_field("reviewer_id", "must be someone other than the subject")
    # answering needs performance:view (active too): one without it could never answer (session 26); one statement
    if data.reviewer_id not in performance_viewers(ctx.db, [data.reviewer_id]):
        raise bad_field("reviewer_id", "must be an active user who may give feedback (performance:view)")
    inserted = insert_ignore(ctx.db, FeedbackRequest, {
        "cycle_id": cycle.id, "subject_id": subject.id, "reviewer_id": data.reviewer_id,
        "requested_by": ctx.user_id, "due_date": data.due_date, "status": "pending"},
        conflict=("cycle_id", "subject_id", "reviewer_id"))
    if not inserted:
        raise Conflict("This reviewer was already asked about this person in this cycle")
    row = ctx.db.execute(feedback_request_select().where(
        FeedbackRequest.cycle_id == cycle.id, FeedbackRequest.subject_id == subject.id,
        FeedbackRequest.reviewer_id == data.reviewer_id)).one()
    if data.reviewer_id != ctx.user_id:  # asking oneself: nobody to tell
        notify(ctx, **_notice(ctx, data.reviewer_id, subject, cycle, row[0].id))
    return feedback_request_record(row)


def peer_ids(db, subject: User) -> list[str]:
    """The subject's peers by access level (document 2, bulk feedback), active users holding `performance:view`
    only: answering needs it, so one without it would be asked and never answer (session 26). One statement."""
    from chalicelib.core.permissions import holders_select

    level = subject.access_level
    if level in ("employee", "lead"):
        if not subject.squad_id:
            return []
        rule = User.squad_id == subject.squad_id
    elif level == "manager":
        rule = or_(User.access_level == "manager", User.manager_id == subject.id)
    else:
        rule = or_(User.access_level == "head", and_(User.manager_id == subject.id, User.access_level == "manager"))
    viewers = holders_select("performance", "view").correlate(None)
    return list(db.scalars(select(User.id).where(rule, User.id != subject.id, User.is_active.is_(True),
                                                 User.id.in_(viewers))
                           .order_by(User.name, User.id)))


def create_bulk(ctx, *, data) -> dict:
    """One INSERT for every peer not asked yet, one batch of notifications: a fixed number of statements."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    cycle = _open_cycle(ctx, data.cycle_id)
    subject = _subject(ctx, data.subject_id)
    peers = peer_ids(ctx.db, subject)
    asked = set(ctx.db.scalars(select(FeedbackRequest.reviewer_id).where(
        FeedbackRequest.cycle_id == cycle.id, FeedbackRequest.subject_id == subject.id))) if peers else set()
    fresh = [peer for peer in peers if peer not in asked]
    ids = {peer: new_id() for peer in fresh}
    created = insert_ignore(ctx.db, FeedbackRequest, [
        {"id": ids[peer], "cycle_id": cycle.id, "subject_id": subject.id, "reviewer_id": peer,
         "requested_by": ctx.user_id, "due_date": data.due_date, "status": "pending"} for peer in fresh],
        conflict=("cycle_id", "subject_id", "reviewer_id"))
    if created < len(fresh):  # a concurrent request asked some of them meanwhile: only this one's rows are notified
        made = set(ctx.db.scalars(select(FeedbackRequest.id).where(FeedbackRequest.id.in_(list(ids.values())))))
        fresh = [peer for peer in fresh if ids[peer] in made]
    told = [peer for peer in fresh if peer != ctx.user_id]  # the caller, when a peer, is asked but not told
    if told:  # every peer holds performance:view (peer_ids): the notices name the subject and link the page
        notify_many(ctx, [_notice(ctx, peer, subject, cycle, ids[peer]) for peer in told])
    return {"created": created, "total_peers": len(peers)}


def respond(ctx, *, data) -> dict:
    try:
        request = load_feedback_request(ctx, data.request_id)
    except NotFound as exc:  # a body reference: 400 naming the field, a hidden request as a missing one (session 26)
        raise bad_field("request_id", "must be a feedback request you were asked") from exc
    if request.reviewer_id != ctx.user_id:
        raise Forbidden("Only the requested reviewer may respond")
    request = lock_row(ctx.db, FeedbackRequest, request.id, missing="Feedback request")
    if request.status != "pending":
        raise Conflict("This feedback request has been answered already")
    # a closed cycle's feedback is fixed as its reviews are (session 31): the cycle is reopened to answer it
    if cycle_closed(ctx.db, request.cycle_id):
        raise Conflict("The review cycle is closed: reopen it to answer its feedback requests")
    values = data.model_dump(exclude={"request_id"})
    response = FeedbackResponse(request_id=request.id, **values)
    ctx.db.add(response)
    request.status = "submitted"
    request.submitted_at = utcnow()
    ctx.db.flush()
    # the record as stored: its id, the request and the answers; the row holds no reviewer and no time
    return row_dict(response, FEEDBACK_RESPONSE_FIELDS)


@cache
def _reviewer():
    """The alias of the reviewer `user_deactivated` names (built once per process)."""
    return aliased(User, name="feedback_reviewer")


def user_deactivated(ctx, user_ids, *, left: bool = True) -> None:
    """After an admin write after which reviewers can no longer answer their pending feedback requests (only the
    requested reviewer responds, and answering needs `performance:view`): the requesters are told, each once
    (`feedback_request_cancelled`), whatever the number of requests and reviewers. Two callers in the admin area:
    - a deactivation (`left`, the default; `user_ids` the one leaver's id: admin.update_user, session 25);
    - a permission change (`left=False`; `user_ids` a list or a SELECT of ids: the users whose effective
      performance level dropped below view, by their override, their access level's matrix cell or a change of
      access level; admin.service_permissions.permissions_moved, session 26). Only the reviewers still active and
      now without `performance:view` count (an inactive one's requesters were told when they left).
    The notice names the reviewer, the subject and cycle when it is one request, the reviewer and the count when
    it is one reviewer, the number of colleagues otherwise; "left" only for a deactivation, "can no longer give"
    for a permission change. The requests stay `pending`: the statuses are pending and submitted (document 2; no
    `cancelled` exists). The caller (the administrator) is left out, as every notice leaves out its actor, and so
    is a request a reviewer made of themselves. The names and the link only to a requester who still holds
    `performance:view`; another learns that a colleague they asked has left or can no longer give it (session
    26). One grouped read whatever the number of requests and reviewers, one read of who may read them, then
    `notify_many`'s (docs/decisions/performance.md, sessions 25, 26)."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify
    from chalicelib.core.permissions import holders_select

    reviewer = _reviewer()
    if isinstance(user_ids, str):
        user_ids = [user_ids]
    where = [FeedbackRequest.reviewer_id.in_(user_ids), FeedbackRequest.status == "pending",
             FeedbackRequest.requested_by.is_not(None), FeedbackRequest.requested_by != FeedbackRequest.reviewer_id]
    if ctx.user_id:
        where.append(FeedbackRequest.requested_by != ctx.user_id)
    if not left:  # still active, and without performance:view now (an inactive one's requesters were told)
        where += [reviewer.is_active.is_(True),
                  FeedbackRequest.reviewer_id.not_in(holders_select("performance", "view").correlate(None))]
    rows = ctx.db.execute(
        select(FeedbackRequest.requested_by, func.count(), func.min(FeedbackRequest.id), func.min(User.name),
               func.min(ReviewCycle.name), func.count(FeedbackRequest.reviewer_id.distinct()), func.min(reviewer.name))
        .join(User, User.id == FeedbackRequest.subject_id)
        .join(reviewer, reviewer.id == FeedbackRequest.reviewer_id)
        .join(ReviewCycle, ReviewCycle.id == FeedbackRequest.cycle_id)
        .where(*where)
        .group_by(FeedbackRequest.requested_by).order_by(FeedbackRequest.requested_by)).all()
    if not rows:
        return
    readers = performance_viewers(ctx.db, [row[0] for row in rows])
    notify_many(ctx, [
        {"user_id": requester, "type": "feedback_request_cancelled",
         "resource_type": "feedback_request", "resource_id": request_id, "actor_id": ctx.user_id,
         **({"title": _cancelled_title(left, count, subject, cycle, reviewers, name),
             "action_url": "/performance/feedback"} if requester in readers
            else {"title": "A colleague you asked for feedback has left" if left
                  else "A colleague you asked for feedback can no longer give it"})}
        for requester, count, request_id, subject, cycle, reviewers, name in rows])


def _cancelled_title(left: bool, count: int, subject: str, cycle: str, reviewers: int, name: str) -> str:
    """The title of `feedback_request_cancelled` for a requester who may read the requests (`user_deactivated`)."""
    if left:
        return (f"{name} left before giving the feedback you asked about {subject} ({cycle})" if count == 1
                else f"{name} left before giving the feedback you asked for ({count} requests)")
    if reviewers > 1:
        return f"{reviewers} colleagues can no longer give the feedback you asked for ({count} requests)"
    return (f"{name} can no longer give the feedback you asked about {subject} ({cycle})" if count == 1
            else f"{name} can no longer give the feedback you asked for ({count} requests)")


def summary(ctx, *, user_id: str, cycle_id: str | None) -> dict:
    """The anonymised aggregate of the submitted responses about the user (one statement after the check)."""
    if not in_reach(ctx.db, ctx.principal, user_id):
        raise NotFound("User not found")
    columns = [getattr(FeedbackResponse, f"{area}_rating") for area in FEEDBACK_AREAS]
    columns += [getattr(FeedbackResponse, f"{area}_comment") for area in FEEDBACK_COMMENTS]
    stmt = (select(*columns, FeedbackResponse.overall_comment)
            .join(FeedbackRequest, FeedbackRequest.id == FeedbackResponse.request_id)
            .where(FeedbackRequest.subject_id == user_id, FeedbackRequest.status == "submitted"))
    if cycle_id:
        stmt = stmt.where(FeedbackRequest.cycle_id == cycle_id)
    rows = [row._mapping for row in ctx.db.execute(stmt)]
    if len(rows) < MINIMUM_RESPONSES:
        return {"sufficient": False, "response_count": len(rows), "minimum_required": MINIMUM_RESPONSES}
    areas = {}
    for area in FEEDBACK_AREAS:
        ratings: dict[str, int] = {}
        for row in rows:
            if row[f"{area}_rating"]:
                ratings[row[f"{area}_rating"]] = ratings.get(row[f"{area}_rating"], 0) + 1
        comments = [row[f"{area}_comment"] for row in rows
                    if area in FEEDBACK_COMMENTS and row[f"{area}_comment"] and row[f"{area}_comment"].strip()]
        _random.shuffle(comments)
        areas[area] = {"ratings": dict(sorted(ratings.items())), "comments": comments[:LIST_LIMIT]}
    overall = [row["overall_comment"] for row in rows if row["overall_comment"] and row["overall_comment"].strip()]
    _random.shuffle(overall)
    # the ratings count every response; each list of comments is at most LIST_LIMIT of them, drawn at random
    return {"sufficient": True, "response_count": len(rows), "minimum_required": MINIMUM_RESPONSES,
            "areas": areas, "overall_comments": overall[:LIST_LIMIT]}


def alerts(ctx) -> dict:
    """The caller's counts in one statement: reviews they review not completed, never their own (for a manager-level
    caller also those of the people they manage, directly or as squad manager, whose reviewer left, may not rate
    them, lacking performance:update, or is the reviewed person: they now rate them, sessions 25, 26, 29), their own
    reviews awaiting self-assessment, feedback requests awaiting them, and open cycles. The reviews and feedback
    requests of a closed cycle are not counted (they are fixed until it is reopened, session 31), nor is the review
    of a person who left, nor a feedback request about them (nobody acts on a leaver's review, session 31)."""
    from chalicelib.core.models import Squad
    from chalicelib.core.permissions import holders_select

    me = ctx.user_id
    inactive = select(User.id).where(User.is_active.is_(False))

    def count(model, *where):
        return select(func.count()).select_from(model).where(*where).scalar_subquery()

    # nobody judges themselves (session 29): the caller's own review, even as its reviewer (an employee's own review
    # defaults it to them), is a self-assessment to write (`self_assessments`), never a review to rate
    reviewing = Review.reviewer_id == me
    if ctx.principal.access_level in ("manager", "head", "executive"):
        managed = select(User.id).where(or_(User.manager_id == me,
                                            User.squad_id.in_(select(Squad.id).where(Squad.manager_id == me))))
        # the reviewer left: inactive, or no longer allowed to rate (performance:update, session 26); or it is the
        # reviewed person, who does not rate their own review (session 29: the manager is told of its submission)
        raters = holders_select("performance", "update").correlate(None)
        left = or_(Review.reviewer_id.in_(inactive), Review.reviewer_id.not_in(raters),
                   Review.reviewer_id == Review.user_id)
        reviewing = or_(reviewing, and_(Review.user_id.in_(managed), left))
    # a closed cycle's reviews and feedback requests are fixed until it is reopened (session 31): no work waits in them
    closed = select(ReviewCycle.id).where(ReviewCycle.status == "closed")
    live = Review.cycle_id.not_in(closed)
    row = ctx.db.execute(select(
        # a leaver's own review waits on nobody: nobody acts on it (session 31)
        count(Review, reviewing, Review.user_id != me, Review.status != "completed", live,
              Review.user_id.not_in(inactive)),
        count(Review, Review.user_id == me, Review.status == "self_assessment", live),
        count(FeedbackRequest, FeedbackRequest.reviewer_id == me, FeedbackRequest.status == "pending",
              FeedbackRequest.cycle_id.not_in(closed), FeedbackRequest.subject_id.not_in(inactive)),
        count(ReviewCycle, ReviewCycle.status == "open"))).one()
    return {"pending_reviews": row[0], "self_assessments": row[1], "pending_feedback": row[2], "open_cycles": row[3]}

