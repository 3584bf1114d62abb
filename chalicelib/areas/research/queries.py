"""The research area's leaf module: the scope clause `visible` (briefs follow deals and companies: every deals
holder sees them all), `load_brief`, and the record builders."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.errors import not_found
from chalicelib.core.models import User
from chalicelib.core.query import LIST_LIMIT, in_scope
from chalicelib.core.serialize import row_dict

from .models import ResearchBrief

BRIEF_FIELDS = ("id", "entity_type", "entity_id", "deal_id", "company_id", "url", "status", "platform_detected",
                "platform", "brief_content", "error", "refreshed_from_id", "created_by", "created_at", "updated_at")


def visible(principal):
    """None: every holder of deals:view sees every brief (companies and deals are not record-scoped)."""
    return None


def load_brief(ctx, brief_id: str) -> ResearchBrief:
    brief = ctx.db.scalar(in_scope(select(ResearchBrief).where(ResearchBrief.id == brief_id), visible(ctx.principal)))
    if brief is None:
        raise not_found("Research brief")
    return brief


def _select():
    return select(ResearchBrief, User.name).outerjoin(User, User.id == ResearchBrief.created_by)


def _record(brief: ResearchBrief, name: str | None) -> dict:
    return {**row_dict(brief, BRIEF_FIELDS, flags=("platform_detected",)), "created_by_name": name}


def brief_record(db, brief_id: str) -> dict:
    return _record(*db.execute(_select().where(ResearchBrief.id == brief_id)).one())


def brief_records(db, principal, *conditions) -> list[dict]:
    """Newest first, at most LIST_LIMIT, one statement."""
    stmt = in_scope(_select().where(*conditions), visible(principal)).order_by(
        ResearchBrief.created_at.desc(), ResearchBrief.id.desc()).limit(LIST_LIMIT)
    return [_record(brief, name) for brief, name in db.execute(stmt)]
