"""Deals: title, company, contact, owner, stage (config list `deal_stage`), value and status."""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from chalicelib.core.errors import BadRequest, not_found
from chalicelib.core.models import ConfigList, ConfigListItem, User
from chalicelib.core.query import contains_text
from chalicelib.core.serialize import row_dict

from .models import Company, Contact, Deal
from .service import contact_name, require_company, require_user

MAX_ROWS = 500
STAGE_LIST = "deal_stage"
DEAL_FIELDS = ("id", "title", "company_id", "contact_id", "owner_id", "stage_id", "value", "currency", "status",
               "website", "created_by", "created_at", "updated_at")


def _deal_select():
    return (
        select(Deal, Company.name, Contact.first_name, Contact.last_name, User.name,
               ConfigListItem.label, ConfigListItem.color, ConfigListItem.probability)
        .outerjoin(Company, Company.id == Deal.company_id)
        .outerjoin(Contact, Contact.id == Deal.contact_id)
        .outerjoin(User, User.id == Deal.owner_id)
        .outerjoin(ConfigListItem, ConfigListItem.id == Deal.stage_id)
    )


def _deal_out(row) -> dict:
    deal, company_name, first_name, last_name, owner_name, stage_label, stage_color, probability = row
    out = row_dict(deal, DEAL_FIELDS)
    out.update(company_name=company_name, contact_name=contact_name(first_name, last_name), owner_name=owner_name,
               stage_label=stage_label, stage_color=stage_color, probability=probability)
    return out


def deal_rows(db: Session, *conditions, limit: int = MAX_ROWS) -> list[dict]:
    """Joined deal records, newest first (one query)."""
    stmt = _deal_select().where(*conditions).order_by(Deal.created_at.desc(), Deal.id).limit(limit)
    return [_deal_out(row) for row in db.execute(stmt)]


def _deal_record(db: Session, deal_id: str) -> dict:
    row = db.execute(_deal_select().where(Deal.id == deal_id)).first()
    if row is None:
        raise not_found("Deal")
    return _deal_out(row)


def _stage_query():
    return select(ConfigListItem.id).join(ConfigList, ConfigList.id == ConfigListItem.list_id).where(
        ConfigList.key == STAGE_LIST)


def _default_stage_id(db: Session) -> str | None:
    return db.scalar(_stage_query().order_by(ConfigListItem.is_default.desc(), ConfigListItem.position,
                                             ConfigListItem.label).limit(1))


def _check_refs(db: Session, values: dict) -> None:
    if values.get("company_id"):
        require_company(db, values["company_id"])
    if values.get("contact_id") and db.get(Contact, values["contact_id"]) is None:
        raise BadRequest("contact_id does not match a contact")
    if values.get("owner_id"):
        require_user(db, values["owner_id"], "owner_id")
    if values.get("stage_id") and db.scalar(_stage_query().where(ConfigListItem.id == values["stage_id"])) is None:
        raise BadRequest("stage_id is not an item of the deal_stage list")


def list_deals(ctx, *, query) -> dict:
    conditions = []
    for field in ("stage_id", "status", "owner_id", "company_id", "contact_id"):
        value = getattr(query, field)
        if value:
            conditions.append(getattr(Deal, field) == value)
    if query.search:
        conditions.append(contains_text(query.search, Deal.title, Company.name))
    return {"deals": deal_rows(ctx.db, *conditions)}


def get_deal(ctx, *, deal_id: str) -> dict:
    return {"deal": _deal_record(ctx.db, deal_id)}


def create_deal(ctx, *, data) -> dict:
    values = data.model_dump()
    if "owner_id" not in data.model_fields_set:
        values["owner_id"] = ctx.user_id
    _check_refs(ctx.db, values)
    if not values.get("stage_id"):
        values["stage_id"] = _default_stage_id(ctx.db)
    deal = Deal(**values, created_by=ctx.user_id)
    ctx.db.add(deal)
    ctx.db.flush()
    return {"deal": _deal_record(ctx.db, deal.id)}


def update_deal(ctx, *, deal_id: str, data) -> dict:
    deal = ctx.db.get(Deal, deal_id)
    if deal is None:
        raise not_found("Deal")
    changes = data.changes()
    _check_refs(ctx.db, changes)
    for key, value in changes.items():
        setattr(deal, key, value)
    ctx.db.flush()
    return {"deal": _deal_record(ctx.db, deal_id)}


def delete_deal(ctx, *, deal_id: str) -> dict:
    deal = ctx.db.get(Deal, deal_id)
    if deal is None:
        raise not_found("Deal")
    ctx.db.delete(deal)
    ctx.db.flush()
    return {"ok": True}
