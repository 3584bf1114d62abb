"""Sprints of a project: list, detail, create, update, delete.

The project is checked through the projects area's service (imported inside the function that
needs it): a sprint may only be created in, or moved to, a project the caller can see.
"""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.errors import BadRequest, NotFound
from chalicelib.core.query import in_scope, visible_exists, visible_row
from chalicelib.core.serialize import row_dict

from .models import Sprint

MAX_ROWS = 500
FIELDS = ("id", "project_id", "name", "start_date", "end_date", "status", "created_by", "created_at", "updated_at")


def _out(sprint: Sprint, project_names: dict[str, str]) -> dict:
    return {**row_dict(sprint, FIELDS), "project_name": project_names.get(sprint.project_id)}


def _out_all(ctx, sprints: list[Sprint]) -> list[dict]:
    """Sprints with their project's name joined (one query for the whole list)."""
    from chalicelib.areas.projects import service as projects_service

    names = projects_service.project_names(ctx.db, [sprint.project_id for sprint in sprints])
    return [_out(sprint, names) for sprint in sprints]


def _require_project(ctx, project_id: str) -> None:
    from chalicelib.areas.projects import service as projects_service

    try:
        projects_service.visible_project(ctx, project_id)
    except NotFound as exc:
        raise BadRequest("project_id does not match a project you can see") from exc


def _check_dates(start, end) -> None:
    if start is not None and end is not None and end < start:
        raise BadRequest("end_date must not be before start_date")


def visible(principal):
    """The WHERE clause of the sprints the principal may see: those of the projects they may see
    (None: all). A sprint of a hidden project is out of scope and answers 404 like a missing one."""
    from chalicelib.areas.projects import service as projects_service

    project_ids = projects_service.visible_project_ids(principal)
    return None if project_ids is None else Sprint.project_id.in_(project_ids)


def _get(ctx, sprint_id: str) -> Sprint:
    return visible_row(ctx.db, Sprint, sprint_id, visible(ctx.principal), "Sprint")


def list_sprints(ctx, *, project_id: str | None, status: str | None) -> dict:
    stmt = in_scope(select(Sprint), visible(ctx.principal))
    if project_id:
        stmt = stmt.where(Sprint.project_id == project_id)
    if status:
        stmt = stmt.where(Sprint.status == status)
    # Newest first; sprints without a start date last.
    stmt = stmt.order_by(Sprint.start_date.is_(None), Sprint.start_date.desc(), Sprint.created_at.desc(),
                         Sprint.id).limit(MAX_ROWS)
    return {"sprints": _out_all(ctx, list(ctx.db.scalars(stmt)))}


def get_sprint(ctx, *, sprint_id: str) -> dict:
    return {"sprint": _out_all(ctx, [_get(ctx, sprint_id)])[0]}


def create_sprint(ctx, *, data) -> dict:
    values = data.model_dump()
    _check_dates(values["start_date"], values["end_date"])
    _require_project(ctx, values["project_id"])
    sprint = Sprint(**values, created_by=ctx.user_id)
    ctx.db.add(sprint)
    ctx.db.flush()
    return {"sprint": _out_all(ctx, [sprint])[0]}


def update_sprint(ctx, *, sprint_id: str, data) -> dict:
    sprint = _get(ctx, sprint_id)
    changes = data.changes()
    _check_dates(changes.get("start_date", sprint.start_date), changes.get("end_date", sprint.end_date))
    if "project_id" in changes and changes["project_id"] != sprint.project_id:
        _require_project(ctx, changes["project_id"])
    for key, value in changes.items():
        setattr(sprint, key, value)
    ctx.db.flush()
    return {"sprint": _out_all(ctx, [sprint])[0]}


def delete_sprint(ctx, *, sprint_id: str) -> dict:
    """Deletes the sprint; the database clears `sprint_id` on the tasks that named it (ON DELETE SET NULL)."""
    ctx.db.delete(_get(ctx, sprint_id))
    ctx.db.flush()
    return {"ok": True}


# ---- for other areas (tasks) ----------------------------------------------------------------------

def visible_sprint_exists(ctx, sprint_id: str) -> bool:
    """Whether the sprint exists in a project the caller can see (one query): a task may name only such
    a sprint."""
    return visible_exists(ctx.db, Sprint, sprint_id, visible(ctx.principal))
