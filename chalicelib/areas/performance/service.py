"""Performance: review cycles and review templates (reviews are in service_reviews.py, feedback and alerts in
service_feedback.py; scope and reads are in queries.py).

Cycles: non-executives read open and closed cycles only; holders of performance:manage create, edit and delete
any cycle (a head creates a draft and opens it). Statuses move draft -> open -> closed and closed -> open
(decisions.md section 9); any other move is 409. Only a draft cycle can be deleted (400). period_end may not
be before period_start (400). A closed cycle holding a completed review keeps its period and its type (409) until it
is reopened (session 31); its name still changes.

Templates (decisions.md section 6, paths in docs/decisions/performance.md): a name, a description and KPI items
(area, label, is_mandatory, sort_order), assigned to users (one template per user; assigning replaces the
user's earlier template). Reads need performance:view, writes performance:manage.
"""
from __future__ import annotations

from sqlalchemy import delete, select

from chalicelib.core.errors import BadRequest, Conflict, bad_field
from chalicelib.core.locks import insert_rows, lock_key, lock_row, update_rows
from chalicelib.core.models import User
from chalicelib.core.query import LIST_LIMIT, in_scope

from .models import Review, ReviewCycle, ReviewTemplate, ReviewTemplateAssignment, ReviewTemplateItem
from .queries import (cycle_progress, cycle_record, load_cycle, load_review, load_template,  # noqa: F401 - load_review:
                      template_records, visible, visible_cycles)  # the notes area checks a noted review with it
from .queries import review_seen_by  # noqa: F401 - the notes area asks who of a note's mentioned users see the record
from .service_access import reviewer_left, reviewers_lost_access  # noqa: F401 - the admin area's hooks (25-27)
from .service_feedback import user_deactivated  # noqa: F401

CYCLE_MOVES = {("draft", "open"), ("open", "closed"), ("closed", "open")}
# what a closed cycle holding a completed review keeps until it is reopened (_refuse_fixed_period, session 31)
FIXED_CYCLE_FIELDS = ("period_start", "period_end", "type")


def _check_period(start, end, sent) -> None:
    """400 when the period would end before it starts, naming the date the request sent (`sent`, its keys):
    `period_end` when it gives one, else `period_start`, moved past the stored end (session 32: that named
    `period_end`, a field the request did not send; as tasks and invoices name it since session 28)."""
    if not (start and end and end < start):
        return
    if "period_end" in sent or "period_start" not in sent:
        raise bad_field("period_end", "must not be before period_start")
    raise bad_field("period_start", "must not be after period_end")


# ---------------------------------------------------------------- cycles

def list_cycles(ctx) -> list[dict]:
    """Newest period first (one statement)."""
    stmt = in_scope(select(ReviewCycle), visible_cycles(ctx.principal))
    stmt = stmt.order_by(ReviewCycle.period_start.desc(), ReviewCycle.created_at.desc(), ReviewCycle.id)
    return [cycle_record(cycle) for cycle in ctx.db.scalars(stmt.limit(LIST_LIMIT))]


def get_cycle(ctx, *, cycle_id: str) -> dict:
    """The cycle with review counts by status (of the reviews the caller may see)."""
    cycle = load_cycle(ctx, cycle_id)
    return {**cycle_record(cycle), "progress": cycle_progress(ctx.db, cycle.id, visible(ctx.principal))}


def create_cycle(ctx, *, data) -> dict:
    _check_period(data.period_start, data.period_end, ("period_start", "period_end"))
    cycle = ReviewCycle(**data.model_dump(), status="draft", created_by=ctx.user_id)
    ctx.db.add(cycle)
    ctx.db.flush()
    return cycle_record(cycle)


def update_cycle(ctx, *, cycle_id: str, data) -> dict:
    load_cycle(ctx, cycle_id, any_status=True)
    cycle = lock_row(ctx.db, ReviewCycle, cycle_id, missing="Review cycle")
    changes = data.changes()
    _check_period(changes.get("period_start", cycle.period_start), changes.get("period_end", cycle.period_end), changes)
    status = changes.get("status")
    if status is not None and status != cycle.status and (cycle.status, status) not in CYCLE_MOVES:
        raise Conflict(f"A cycle cannot move from {cycle.status} to {status}")
    _refuse_fixed_period(ctx, cycle, changes)
    for key, value in changes.items():
        setattr(cycle, key, value)
    ctx.db.flush()
    return cycle_record(cycle)


def _refuse_fixed_period(ctx, cycle: ReviewCycle, changes: dict) -> None:
    """409 when the write changes the period or the type of a cycle that is closed, stays closed and holds a completed
    review (session 31): its reviews are fixed (service_reviews), and the period is what their history,
    `previous_reviews` and `/my-goals` read them by, the type how `previous_reviews` picks them (an annual review
    reads the quarterly ones of its period; round 2). The name still changes; a period or type sent back unchanged
    is no change; reopening the cycle (in this write or before it) lifts the lock, as it does for its reviews. The
    cycle's row is locked (update_cycle), and a closed cycle's reviews are not completed meanwhile: one read, only
    when the period or the type changes."""
    if cycle.status != "closed" or changes.get("status", "closed") != "closed":
        return
    if all(key not in changes or changes[key] == getattr(cycle, key) for key in FIXED_CYCLE_FIELDS):
        return
    completed = ctx.db.scalar(select(Review.id).where(Review.cycle_id == cycle.id, Review.status == "completed")
                              .limit(1))
    if completed is not None:
        raise Conflict("The review cycle is closed and holds completed reviews: reopen it to change its period or type")


def delete_cycle(ctx, *, cycle_id: str) -> None:
    """A draft cycle goes with its reviews (cycle_id cascades) and their notes (the notes area: one statement, the
    reviews' ids read in it before the cascade; session 23)."""
    from chalicelib.areas.notes import service as notes_service  # another area: imported lazily

    load_cycle(ctx, cycle_id, any_status=True)
    cycle = lock_row(ctx.db, ReviewCycle, cycle_id, missing="Review cycle")
    if cycle.status != "draft":
        raise BadRequest("Only a draft cycle can be deleted")
    notes_service.records_deleted(ctx.db, "review", select(Review.id).where(Review.cycle_id == cycle.id))
    ctx.db.delete(cycle)
    ctx.db.flush()


# ---------------------------------------------------------------- templates

def list_templates(ctx) -> list[dict]:
    stmt = select(ReviewTemplate).order_by(ReviewTemplate.name, ReviewTemplate.id).limit(LIST_LIMIT)
    return template_records(ctx.db, ctx.db.scalars(stmt))


def template_record(ctx, template_id: str) -> dict:
    return template_records(ctx.db, [ctx.db.get(ReviewTemplate, template_id)])[0]


def get_template(ctx, *, template_id: str) -> dict:
    return template_records(ctx.db, [load_template(ctx, template_id)])[0]


def _write_items(ctx, template_id: str, items) -> None:
    """Makes the template's items these: an entry naming one of its items by `id` keeps that item (updated in
    place, so the ratings copied from it keep their template_item_id and an annual review's aggregation still
    counts them), an entry without one is a new item, an item no entry names is deleted (its ratings lose their
    template_item_id: ON DELETE SET NULL). An id that is not one of the template's items is a 400. At most four
    statements, whatever the number of items."""
    rows = [{"id": getattr(item, "id", None), "area": item.area, "label": item.label,
             "is_mandatory": item.is_mandatory, "sort_order": index if item.sort_order is None else item.sort_order}
            for index, item in enumerate(items)]
    named = [row["id"] for row in rows if row["id"]]
    existing = set(ctx.db.scalars(select(ReviewTemplateItem.id).where(ReviewTemplateItem.template_id == template_id))
                   ) if named else set()
    problems = [{"field": f"items.{index}.id", "message": "is not an item of this template"}
                for index, row in enumerate(rows) if row["id"] and row["id"] not in existing]
    if len(set(named)) != len(named):
        problems.append({"field": "items", "message": "names an item twice"})
    if problems:
        raise BadRequest("Invalid template items", details=problems[:10])
    ctx.db.execute(delete(ReviewTemplateItem).where(ReviewTemplateItem.template_id == template_id,
                                                    ReviewTemplateItem.id.not_in(named))
                   .execution_options(synchronize_session=False))
    # one UPDATE ... FROM for every kept item (core.locks.update_rows): the ORM's bulk update by primary key was an
    # executemany, one round trip an item on pg8000 (session 26, audit of statements per row)
    update_rows(ctx.db, ReviewTemplateItem.__table__, [row for row in rows if row["id"]])
    insert_rows(ctx.db, ReviewTemplateItem, [{**{k: v for k, v in row.items() if k != "id"}, "template_id": template_id}
                                             for row in rows if not row["id"]])


def create_template(ctx, *, data) -> dict:
    template = ReviewTemplate(name=data.name, description=data.description)
    ctx.db.add(template)
    ctx.db.flush()
    _write_items(ctx, template.id, data.items)
    return template_record(ctx, template.id)


def update_template(ctx, *, template_id: str, data) -> dict:
    load_template(ctx, template_id)
    template = lock_row(ctx.db, ReviewTemplate, template_id, missing="Review template")
    changes = data.changes()
    items = changes.pop("items", None)
    for key, value in changes.items():
        setattr(template, key, value)
    ctx.db.flush()
    if items is not None:
        _write_items(ctx, template.id, data.items)
    ctx.db.expire_all()
    return template_record(ctx, template.id)


def delete_template(ctx, *, template_id: str) -> None:
    """Deletes the template, its items and assignments; reviews keep their copied ratings."""
    ctx.db.delete(load_template(ctx, template_id))
    ctx.db.flush()


def assign_template(ctx, *, template_id: str, data) -> dict:
    """Assigns the template to users (each user's earlier template is replaced): one DELETE, one INSERT."""
    load_template(ctx, template_id)
    user_ids = list(dict.fromkeys(data.user_ids))
    found = set(ctx.db.scalars(select(User.id).where(User.id.in_(user_ids))))
    unknown = [user_id for user_id in user_ids if user_id not in found]
    if unknown:
        raise BadRequest("user_ids must name existing users",
                         details=[{"field": "user_ids", "message": f"no such user: {user_id}"} for user_id in unknown[:10]])
    lock_row(ctx.db, ReviewTemplate, template_id, missing="Review template")
    # assignments of other templates to the same users at the same moment take turns (each replaces the user's
    # earlier row; without it the second insert met the first's uncommitted row: a 409)
    lock_key(ctx.db, "review-template-assignments")
    ctx.db.execute(delete(ReviewTemplateAssignment).where(ReviewTemplateAssignment.user_id.in_(user_ids))
                   .execution_options(synchronize_session=False))
    insert_rows(ctx.db, ReviewTemplateAssignment, [{"user_id": user_id, "template_id": template_id}
                                                   for user_id in user_ids])
    return template_record(ctx, template_id)


def unassign_template(ctx, *, template_id: str, user_id: str) -> None:
    load_template(ctx, template_id)
    ctx.db.execute(delete(ReviewTemplateAssignment).where(ReviewTemplateAssignment.template_id == template_id,
                                                          ReviewTemplateAssignment.user_id == user_id)
                   .execution_options(synchronize_session=False))
