"""Companies and contacts (the sales directory), plus the functions other areas call.

Other areas import this module lazily and call `company_names` and `deal_brief`. Deals live in
`service_deals.py`; the joined deal rows of company and contact details come from there.
"""
from __future__ import annotations

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from chalicelib.core.errors import BadRequest, Conflict, not_found
from chalicelib.core.models import User
from chalicelib.core.query import contains_text
from chalicelib.core.serialize import row_dict

from .models import Company, Contact, Deal

PAGE_SIZE = 50
COMPANY_FIELDS = ("id", "name", "domain", "website", "industry", "phone", "address", "status", "owner_id",
                  "network_data", "network_enriched_at", "created_by", "created_at", "updated_at")
CONTACT_FIELDS = ("id", "first_name", "last_name", "email", "phone", "job_title", "company_id", "network_url",
                  "network_data", "network_enriched_at", "created_by", "created_at", "updated_at")


# ---- functions other areas call -------------------------------------------------------------

def company_names(db: Session, company_ids: list[str]) -> dict[str, str]:
    """`{company_id: name}` for the ids that exist (one query)."""
    ids = {company_id for company_id in company_ids if company_id}
    if not ids:
        return {}
    return dict(db.execute(select(Company.id, Company.name).where(Company.id.in_(ids))).all())


def deal_brief(db: Session, deal_id: str) -> dict | None:
    """`{"id", "title", "status"}` of a deal, or None when it does not exist."""
    if not deal_id:
        return None
    row = db.execute(select(Deal.id, Deal.title, Deal.status).where(Deal.id == deal_id)).first()
    return {"id": row.id, "title": row.title, "status": row.status} if row else None


# ---- shared helpers ---------------------------------------------------------------------------

def contact_name(first_name: str | None, last_name: str | None) -> str | None:
    name = " ".join(part for part in (first_name, last_name) if part)
    return name or None


def require_user(db: Session, user_id: str, field: str) -> None:
    if db.scalar(select(User.id).where(User.id == user_id)) is None:
        raise BadRequest(f"{field} does not match a user")


def require_company(db: Session, company_id: str, field: str = "company_id") -> None:
    if db.get(Company, company_id) is None:
        raise BadRequest(f"{field} does not match a company")


def _page(query_page: int) -> tuple[int, int]:
    return (query_page - 1) * PAGE_SIZE, PAGE_SIZE


# ---- companies ---------------------------------------------------------------------------------

def _company_out(company: Company, owner_name: str | None) -> dict:
    out = row_dict(company, COMPANY_FIELDS)
    out["owner_name"] = owner_name
    return out


def _company_select():
    return select(Company, User.name).outerjoin(User, User.id == Company.owner_id)


def list_companies(ctx, *, search: str | None, page: int) -> dict:
    conditions = []
    if search:
        conditions.append(contains_text(search, Company.name, Company.domain))
    total = ctx.db.scalar(select(func.count()).select_from(Company).where(*conditions))
    offset, limit = _page(page)
    rows = ctx.db.execute(
        _company_select().where(*conditions).order_by(func.lower(Company.name), Company.id).offset(offset).limit(limit)
    ).all()
    return {"companies": [_company_out(company, owner) for company, owner in rows], "total": total, "page": page}


def _company_record(db: Session, company_id: str) -> dict:
    row = db.execute(_company_select().where(Company.id == company_id)).first()
    if row is None:
        raise not_found("Company")
    return _company_out(*row)


def get_company(ctx, *, company_id: str) -> dict:
    from . import service_deals

    company = _company_record(ctx.db, company_id)
    contacts = _contact_rows(ctx.db, Contact.company_id == company_id, limit=500)
    deals = service_deals.deal_rows(ctx.db, Deal.company_id == company_id)
    return {"company": company, "contacts": contacts, "deals": deals}


def _check_company_refs(db: Session, data: dict) -> None:
    if data.get("owner_id"):
        require_user(db, data["owner_id"], "owner_id")


def create_company(ctx, *, data) -> dict:
    values = data.model_dump()
    if "owner_id" not in data.model_fields_set:
        values["owner_id"] = ctx.user_id
    _check_company_refs(ctx.db, values)
    company = Company(**values, created_by=ctx.user_id)
    ctx.db.add(company)
    ctx.db.flush()
    return _company_record(ctx.db, company.id)


def update_company(ctx, *, company_id: str, data) -> dict:
    company = ctx.db.get(Company, company_id)
    if company is None:
        raise not_found("Company")
    changes = data.changes()
    _check_company_refs(ctx.db, changes)
    for key, value in changes.items():
        setattr(company, key, value)
    ctx.db.flush()
    return _company_record(ctx.db, company_id)


def delete_company(ctx, *, company_id: str) -> dict:
    """409 while deals reference the company; its contacts are kept and detached."""
    company = ctx.db.get(Company, company_id)
    if company is None:
        raise not_found("Company")
    deals = ctx.db.scalar(select(func.count()).select_from(Deal).where(Deal.company_id == company_id))
    if deals:
        raise Conflict(f"Company has {deals} deal(s); move or delete them first")
    ctx.db.execute(update(Contact).where(Contact.company_id == company_id).values(company_id=None)
                   .execution_options(synchronize_session=False))
    ctx.db.delete(company)
    ctx.db.flush()
    return {"ok": True}


# ---- contacts ----------------------------------------------------------------------------------

def _contact_out(contact: Contact, company_name: str | None) -> dict:
    out = row_dict(contact, CONTACT_FIELDS)
    out["name"] = contact_name(contact.first_name, contact.last_name)
    out["company_name"] = company_name
    return out


def _contact_select():
    return select(Contact, Company.name).outerjoin(Company, Company.id == Contact.company_id)


def _contact_order():
    return (func.lower(Contact.first_name), func.lower(func.coalesce(Contact.last_name, "")), Contact.id)


def _contact_rows(db: Session, *conditions, limit: int, offset: int = 0) -> list[dict]:
    rows = db.execute(_contact_select().where(*conditions).order_by(*_contact_order()).offset(offset).limit(limit))
    return [_contact_out(contact, company_name) for contact, company_name in rows]


def list_contacts(ctx, *, search: str | None, company_id: str | None, page: int) -> dict:
    conditions = []
    if search:
        full_name = Contact.first_name + " " + func.coalesce(Contact.last_name, "")
        conditions.append(contains_text(search, full_name, Contact.email))
    if company_id:
        conditions.append(Contact.company_id == company_id)
    total = ctx.db.scalar(select(func.count()).select_from(Contact).where(*conditions))
    offset, limit = _page(page)
    return {"contacts": _contact_rows(ctx.db, *conditions, limit=limit, offset=offset), "total": total, "page": page}


def _contact_record(db: Session, contact_id: str) -> dict:
    row = db.execute(_contact_select().where(Contact.id == contact_id)).first()
    if row is None:
        raise not_found("Contact")
    return _contact_out(*row)


def get_contact(ctx, *, contact_id: str) -> dict:
    from . import service_deals

    contact = _contact_record(ctx.db, contact_id)
    return {"contact": contact, "deals": service_deals.deal_rows(ctx.db, Deal.contact_id == contact_id)}


def create_contact(ctx, *, data) -> dict:
    values = data.model_dump()
    if values.get("company_id"):
        require_company(ctx.db, values["company_id"])
    contact = Contact(**values, created_by=ctx.user_id)
    ctx.db.add(contact)
    ctx.db.flush()
    return _contact_record(ctx.db, contact.id)


def update_contact(ctx, *, contact_id: str, data) -> dict:
    contact = ctx.db.get(Contact, contact_id)
    if contact is None:
        raise not_found("Contact")
    changes = data.changes()
    if changes.get("company_id"):
        require_company(ctx.db, changes["company_id"])
    for key, value in changes.items():
        setattr(contact, key, value)
    ctx.db.flush()
    return _contact_record(ctx.db, contact_id)


def delete_contact(ctx, *, contact_id: str) -> dict:
    """Deals that named the contact keep going without one (contact_id becomes null)."""
    contact = ctx.db.get(Contact, contact_id)
    if contact is None:
        raise not_found("Contact")
    ctx.db.execute(update(Deal).where(Deal.contact_id == contact_id).values(contact_id=None)
                   .execution_options(synchronize_session=False))
    ctx.db.delete(contact)
    ctx.db.flush()
    return {"ok": True}
