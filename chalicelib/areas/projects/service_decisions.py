"""Project decision log: ordered by decided_at then created_at, newest first; decided_by_name joined."""
from __future__ import annotations

from chalicelib.core.errors import Conflict
from chalicelib.core.locks import lock_row
from chalicelib.core.query import Page, record_page
from chalicelib.core.timeutil import org_today

from .models import Project, ProjectDecision
from .queries import (SUB_LIST_LIMIT, count_of, decision_records, decision_select, load_decision, load_project,
                      require_users)


def list_decisions(ctx, *, project_id: str, query) -> Page:
    """A page of the project's decisions (core.schemas.PageQuery; a page past what a Lambda answer carries is cut
    to fit: 22 decisions of 50,000 non-ASCII characters made the whole list a 413 for every reader)."""
    load_project(ctx, project_id)
    return record_page(ctx.db, decision_select(ProjectDecision.project_id == project_id, limit=None), query)


def create_decision(ctx, *, project_id: str, data) -> dict:
    """A project holds at most SUB_LIST_LIMIT (500) decisions (409 beyond)."""
    project = load_project(ctx, project_id)
    require_users(ctx.db, decided_by=data.decided_by)
    lock_row(ctx.db, Project, project.id, missing="Project")  # concurrent creates cannot pass the cap together
    if count_of(ctx.db, ProjectDecision, project.id) >= SUB_LIST_LIMIT:
        raise Conflict(f"A project holds at most {SUB_LIST_LIMIT} decisions")
    decision = ProjectDecision(project_id=project.id, title=data.title, decision=data.decision,
                               rationale=data.rationale, decided_by=data.decided_by,
                               decided_at=data.decided_at or org_today(), status=data.status or "agreed",
                               created_by=ctx.user_id)
    ctx.db.add(decision)
    ctx.db.flush()
    return decision_records(ctx.db, ProjectDecision.id == decision.id)[0]


def update_decision(ctx, *, project_id: str, decision_id: str, data) -> dict:
    decision = load_decision(ctx, project_id, decision_id)
    values = data.changes()
    require_users(ctx.db, decided_by=values.get("decided_by"))
    for field, value in values.items():
        setattr(decision, field, value)
    ctx.db.flush()
    return decision_records(ctx.db, ProjectDecision.id == decision.id)[0]


def delete_decision(ctx, *, project_id: str, decision_id: str) -> None:
    ctx.db.delete(load_decision(ctx, project_id, decision_id))
    ctx.db.flush()
