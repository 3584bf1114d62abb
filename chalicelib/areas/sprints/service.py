"""Sprints of a project: create, update, delete (reads are in queries.py).

The project is checked through the projects area's service (imported inside the function that
needs it): a sprint may only be created in, or moved to, a project the caller can see.
"""
from __future__ import annotations

from chalicelib.core.errors import NotFound, bad_field
from chalicelib.core.locks import lock_row
from chalicelib.core.query import in_scope

from .models import Sprint
from .queries import FIELDS, load_sprint, sprint_record, visible


def _require_project(ctx, project_id: str) -> None:
    from chalicelib.areas.projects import service as projects_service

    try:
        projects_service.link_project(ctx, project_id)  # waits for a delete of the project in progress
    except NotFound as exc:
        raise bad_field("project_id", "does not match a project you can see") from exc


def _check_dates(start, end, sent) -> None:
    """400 when the sprint would end before it starts, naming the date the request sent (`sent`, its keys):
    `end_date` when it gives one, else `start_date`, moved past the stored end (session 32: that named `end_date`,
    a field the request did not send; as tasks and invoices name it since session 28)."""
    if start is None or end is None or end >= start:
        return
    if "end_date" in sent or "start_date" not in sent:
        raise bad_field("end_date", "must not be before start_date")
    raise bad_field("start_date", "must not be after end_date")


def create_sprint(ctx, *, data) -> dict:
    values = data.model_dump()
    _check_dates(values["start_date"], values["end_date"], values)
    _require_project(ctx, values["project_id"])
    sprint = Sprint(**values, created_by=ctx.user_id)
    ctx.db.add(sprint)
    ctx.db.flush()
    return sprint_record(ctx, sprint)


def update_sprint(ctx, *, sprint_id: str, data) -> dict:
    sprint = load_sprint(ctx, sprint_id)
    lock_row(ctx.db, Sprint, sprint.id, missing="Sprint")  # a status change (closing the sprint) is made on the current row
    changes = data.changes()
    _check_dates(changes.get("start_date", sprint.start_date), changes.get("end_date", sprint.end_date), changes)
    if "project_id" in changes and changes["project_id"] != sprint.project_id:
        _require_project(ctx, changes["project_id"])
    for key, value in changes.items():
        setattr(sprint, key, value)
    ctx.db.flush()
    return sprint_record(ctx, sprint)


def delete_sprint(ctx, *, sprint_id: str) -> None:
    """Deletes the sprint; the database clears `sprint_id` on the tasks that named it (ON DELETE SET NULL)."""
    ctx.db.delete(load_sprint(ctx, sprint_id))
    ctx.db.flush()


# ---- for other areas (tasks, projects) ------------------------------------------------------------

def project_deleted(db, project_id: str) -> None:
    """The project is being deleted: its sprints go with it (one DELETE); the database clears `sprint_id` on the
    tasks that named them (ON DELETE SET NULL, as a sprint delete does), the tasks keeping their other links."""
    from sqlalchemy import delete

    db.execute(delete(Sprint).where(Sprint.project_id == project_id).execution_options(synchronize_session=False))


def visible_sprint_status(ctx, sprint_id: str) -> str | None:
    """The status of the sprint if it exists in a project the caller can see, else None (one query): a task may
    name only such a sprint, and only one that is not `closed` (session 31: a closed sprint's contents are fixed).
    The sprint's row is share-locked (FOR KEY SHARE), as roadmaps' `visible_item_exists` locks an item:
    a delete of the sprint in progress is waited for and then answers None, so a task duplicate leaves the sprint
    null and a create or update answers 400 on `sprint_id` from this check, not from the foreign key (session 24's
    review; the lock the task's foreign key takes at its write anyway, taken at the read). A close in progress
    (`update_sprint` locks the row FOR UPDATE) is waited for too, and the status read is the one it committed: a task
    is never put into a sprint closed meanwhile. A sprint is seen with `projects:view` (the sprints routes' tool) as
    well as the scope (session 29): None, and no statement, without it."""
    from sqlalchemy import select

    if not ctx.reads("projects"):
        return None

    stmt = in_scope(select(Sprint.status).where(Sprint.id == sprint_id), visible(ctx.principal))
    return ctx.db.scalar(stmt.with_for_update(read=True, key_share=True, of=Sprint))


def _current_sprint_order(today) -> tuple:
    """ORDER BY terms that put the current sprint first among active ones (docs/decisions/sprints.md, session 28):
    one whose dates contain `today` (begun on or before it, its end date, if any, not before it), the latest start
    first; else the one that ended most recently; else the next to begin; sprints without a start date last."""
    from sqlalchemy import case

    begun = Sprint.start_date <= today
    ended = Sprint.end_date < today
    running = begun & (Sprint.end_date.is_(None) | ~ended)
    return (case((running, 0), (begun, 1), (Sprint.start_date.is_not(None), 2), else_=3),
            case((running, Sprint.start_date)).desc(), case((begun, Sprint.end_date)).desc(),
            case((begun, Sprint.start_date)).desc(), Sprint.start_date, Sprint.created_at.desc(), Sprint.id)


def centre_sprints(ctx, sprint_id: str | None) -> tuple[dict | None, dict | None, dict | None]:
    """(sprint, previous, next) for the action centre: `sprint_id` (a sprint the caller can see: 404
    otherwise) or the caller's current sprint (`_current_sprint_order`) among the active sprints of the projects they
    own or belong to; previous and next are the sprints of the same project just before and after it by start date
    (`{id, name}`; none when it has no start date). Three statements at most."""
    from sqlalchemy import literal, select, tuple_

    from chalicelib.areas.projects import service as projects_service
    from chalicelib.core.serialize import row_dict
    from chalicelib.core.timeutil import org_today

    if sprint_id:
        sprint = load_sprint(ctx, sprint_id)
    else:
        sprint = ctx.db.scalar(select(Sprint).where(Sprint.status == "active",
                                                    Sprint.project_id.in_(projects_service.own_project_ids(ctx.user_id)))
                               .order_by(*_current_sprint_order(org_today())).limit(1))
    if sprint is None:
        return None, None, None
    if sprint.start_date is None:
        return row_dict(sprint, FIELDS), None, None
    # neighbours in the project's order by start date, then creation: sprints starting on the same day are each
    # other's previous and next, not skipped
    key = tuple_(Sprint.start_date, Sprint.created_at, Sprint.id)
    here = tuple_(*(literal(getattr(sprint, column.key), column.type) for column in (Sprint.start_date,
                                                                                      Sprint.created_at, Sprint.id)))
    same = (Sprint.project_id == sprint.project_id, Sprint.id != sprint.id, Sprint.start_date.is_not(None))
    before = ctx.db.execute(select(Sprint.id, Sprint.name).where(*same, key < here)
                            .order_by(Sprint.start_date.desc(), Sprint.created_at.desc(), Sprint.id.desc())
                            .limit(1)).first()
    after = ctx.db.execute(select(Sprint.id, Sprint.name).where(*same, key > here)
                           .order_by(Sprint.start_date, Sprint.created_at, Sprint.id).limit(1)).first()
    brief = lambda row: {"id": row.id, "name": row.name} if row else None  # noqa: E731
    return row_dict(sprint, FIELDS), brief(before), brief(after)
