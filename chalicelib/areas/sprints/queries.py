"""The sprints area's leaf module: the scope clause `visible`, the load-or-404 helper `load_sprint`, the
record builder and the list query. service.py imports it, never the reverse."""
from __future__ import annotations

from dataclasses import replace
from functools import cache

from sqlalchemy import select

from chalicelib.core.query import Page, in_scope, record_page, visible_row
from chalicelib.core.serialize import row_dict

from .models import Sprint

FIELDS = ("id", "project_id", "name", "start_date", "end_date", "status", "created_by", "created_at", "updated_at")


def visible(principal):
    """The WHERE clause of the sprints the principal may see: those of the projects they may see
    (None: all). A sprint of a hidden project is out of scope and answers 404 like a missing one."""
    from chalicelib.areas.projects import service as projects_service

    project_ids = projects_service.visible_project_ids(principal)
    return None if project_ids is None else Sprint.project_id.in_(project_ids)


def load_sprint(ctx, sprint_id: str) -> Sprint:
    """The sprint if it exists in a project the caller can see; 404 otherwise (one query)."""
    return visible_row(ctx.db, Sprint, sprint_id, visible(ctx.principal), "Sprint")


def sprint_records(ctx, sprints: list[Sprint]) -> list[dict]:
    """Sprint records with their project's name joined (one query for the whole list)."""
    from chalicelib.areas.projects import service as projects_service

    names = projects_service.project_names(ctx.db, [sprint.project_id for sprint in sprints])
    return [{**row_dict(sprint, FIELDS), "project_name": names.get(sprint.project_id)} for sprint in sprints]


def sprint_record(ctx, sprint: Sprint) -> dict:
    return sprint_records(ctx, [sprint])[0]


@cache
def _record_select():
    """Sprints as records (FIELDS), read without ORM instances (core.query.record_page); built once per process."""
    return select(*(getattr(Sprint, name) for name in FIELDS))


def list_sprints(ctx, query) -> Page:
    """The sprints the caller may see (filters project_id and status), newest first, sprints without a
    start date last; one page of them (query.limit, query.offset) as records, then the total (when counted) and
    their projects' names in one more statement (record_page)."""
    from chalicelib.areas.projects import service as projects_service

    stmt = in_scope(_record_select(), visible(ctx.principal))
    if query.project_id:
        stmt = stmt.where(Sprint.project_id == query.project_id)
    if query.status:
        stmt = stmt.where(Sprint.status == query.status)
    stmt = stmt.order_by(Sprint.start_date.is_(None), Sprint.start_date.desc(), Sprint.created_at.desc(), Sprint.id.desc())
    page, sets = record_page(ctx.db, stmt, query, lookups=lambda rows: {
        "projects": projects_service.project_names_select(ctx.db, [row["project_id"] for row in rows])})
    names = {row["id"]: row["name"] for row in sets["projects"]}
    return replace(page, items=[{**row, "project_name": names.get(row["project_id"])} for row in page.items])
