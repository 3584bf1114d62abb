"""Project decision log: ordered by decided_at then created_at, newest first; decided_by_name joined."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.errors import not_found
from chalicelib.core.models import User
from chalicelib.core.serialize import row_dict
from chalicelib.core.timeutil import org_today

from .models import ProjectDecision
from .service import LIST_LIMIT, require_users, visible_project

DECISION_FIELDS = ("id", "project_id", "title", "decision", "rationale", "decided_by", "decided_at", "status",
                   "created_by", "created_at", "updated_at")


def _records(db, where) -> list[dict]:
    rows = db.execute(
        select(ProjectDecision, User.name).outerjoin(User, User.id == ProjectDecision.decided_by).where(where)
        .order_by(ProjectDecision.decided_at.desc().nulls_last(), ProjectDecision.created_at.desc(), ProjectDecision.id)
        .limit(LIST_LIMIT)
    ).all()
    return [{**row_dict(decision, DECISION_FIELDS), "decided_by_name": name} for decision, name in rows]


def list_decisions(ctx, *, project_id: str) -> list[dict]:
    visible_project(ctx, project_id)
    return _records(ctx.db, ProjectDecision.project_id == project_id)


def _decision(ctx, project_id: str, decision_id: str) -> ProjectDecision:
    visible_project(ctx, project_id)
    decision = ctx.db.scalar(select(ProjectDecision).where(ProjectDecision.id == decision_id,
                                                           ProjectDecision.project_id == project_id))
    if decision is None:
        raise not_found("Decision")
    return decision


def create_decision(ctx, *, project_id: str, data) -> dict:
    project = visible_project(ctx, project_id)
    require_users(ctx.db, decided_by=data.decided_by)
    decision = ProjectDecision(project_id=project.id, title=data.title, decision=data.decision,
                               rationale=data.rationale, decided_by=data.decided_by,
                               decided_at=data.decided_at or org_today(), status=data.status or "agreed",
                               created_by=ctx.user_id)
    ctx.db.add(decision)
    ctx.db.flush()
    return _records(ctx.db, ProjectDecision.id == decision.id)[0]


def update_decision(ctx, *, project_id: str, decision_id: str, data) -> dict:
    decision = _decision(ctx, project_id, decision_id)
    values = data.changes()
    require_users(ctx.db, decided_by=values.get("decided_by"))
    for field, value in values.items():
        setattr(decision, field, value)
    ctx.db.flush()
    return _records(ctx.db, ProjectDecision.id == decision.id)[0]


def delete_decision(ctx, *, project_id: str, decision_id: str) -> None:
    ctx.db.delete(_decision(ctx, project_id, decision_id))
    ctx.db.flush()
