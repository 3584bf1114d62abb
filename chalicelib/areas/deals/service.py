"""Companies and contacts (the sales directory), plus the functions other areas call.

Other areas import this module lazily and call `company_names` and `deal_brief`; a record of another area that
names a company, contact or deal asks `company_seen`, `contact_seen` or `deal_seen` (`link_company` and `link_deal`
when the name must hold until the write commits), each of which asks `deals:view` itself. Deals live in
`service_deals.py`; records, loads and the joined deal rows of company and contact details come from
`queries.py`.
"""
from __future__ import annotations

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from chalicelib.core.errors import Conflict
from chalicelib.core.locks import lock_row
from chalicelib.core.query import contains_text

from .models import Company, Contact, Deal
from .queries import (DETAIL_LIMIT, check_room, company_out, company_record, company_select, contact_record,
                      contact_rows, count_of, deal_rows, load_company, load_contact, require_company, require_user,
                      visible)
from .queries import seen_by  # noqa: F401 - the notes area asks who of a note's mentioned users see the record
from .queries import deal_readers  # noqa: F401 - research tells a deal's owner of a brief only when they read the deal
from .queries import company_names, company_names_select, contact_names_select  # noqa: F401 - other areas call them through the service

PAGE_SIZE = 50  # the spec's pages of companies and contacts (`page`, 50 each)


# ---- functions other areas call -------------------------------------------------------------
# company_names and company_names_select (queries.py) are imported above for them.


def client_company_ids(db: Session, company_ids) -> set[str]:
    """The ids among `company_ids` of companies that are clients (status `client`; one query)."""
    ids = {company_id for company_id in company_ids or () if company_id}
    if not ids:
        return set()
    return set(db.scalars(select(Company.id).where(Company.id.in_(ids), Company.status == "client")))


def company_deal_ids(company_ids):
    """A SELECT of the ids of the deals of these companies (the portal's budgets linked to deals)."""
    return select(Deal.id).where(Deal.company_id.in_(list(company_ids)))


def check_company(db: Session, company_id: str | None) -> None:
    """A body's `company_id`, when given, names an existing company: a 400 naming the field otherwise."""
    from chalicelib.core.errors import bad_field

    if company_id and not company_names(db, [company_id]):
        raise bad_field("company_id", "must be an existing company")


def company_contact_emails(company_ids):
    """A SELECT of the lower-cased e-mail addresses of these companies' contacts (the portal's contracts)."""
    return select(func.lower(Contact.email)).where(Contact.company_id.in_(list(company_ids)), Contact.email.is_not(None))


def contact_names(db: Session, contact_ids: list[str]) -> dict[str, tuple[str, str | None]]:
    """`{contact_id: (first_name, last_name)}` for the ids that exist (one query)."""
    read = contact_names_select(db, contact_ids)
    rows = [] if read is None else db.execute(read.stmt, read.params).all()
    return {row.id: (row.first_name, row.last_name) for row in rows}


def check_contact(db: Session, contact_id: str | None) -> None:
    """A body's `contact_id`, when given, names an existing contact: a 400 naming the field otherwise."""
    from chalicelib.core.errors import bad_field

    if contact_id and not contact_names(db, [contact_id]):
        raise bad_field("contact_id", "must be an existing contact")


def contact_briefs(db: Session, contact_ids: list[str]) -> dict[str, dict]:
    """`{contact_id: {first_name, last_name, email, phone, company_id}}` for the ids that exist (one query)."""
    ids = {contact_id for contact_id in contact_ids if contact_id}
    if not ids:
        return {}
    rows = db.execute(select(Contact.id, Contact.first_name, Contact.last_name, Contact.email, Contact.phone,
                             Contact.company_id).where(Contact.id.in_(ids))).all()
    return {row.id: {"first_name": row.first_name, "last_name": row.last_name, "email": row.email,
                     "phone": row.phone, "company_id": row.company_id} for row in rows}


def company_contacts(db: Session, company_id: str) -> list[dict]:
    """The company's contacts (at most DETAIL_LIMIT, the cap enforced on write), by name (one query)."""
    from .queries import contact_name, contact_order

    rows = db.execute(select(Contact.id, Contact.first_name, Contact.last_name, Contact.email, Contact.phone,
                             Contact.job_title).where(Contact.company_id == company_id)
                      .order_by(*contact_order()).limit(DETAIL_LIMIT)).all()
    return [{"id": r.id, "first_name": r.first_name, "last_name": r.last_name,
             "name": contact_name(r.first_name, r.last_name), "email": r.email, "phone": r.phone,
             "job_title": r.job_title} for r in rows]


def deal_facts(db: Session, deal_id: str) -> dict | None:
    """`{id, title, company_id, owner_id, website}` of a deal, or None when it does not exist (research)."""
    row = db.execute(select(Deal.id, Deal.title, Deal.company_id, Deal.owner_id, Deal.website)
                     .where(Deal.id == deal_id)).first() if deal_id else None
    return dict(row._mapping) if row else None


def company_facts(db: Session, company_id: str) -> dict | None:
    """`{id, name, website, domain, owner_id}` of a company, or None when it does not exist (research)."""
    row = db.execute(select(Company.id, Company.name, Company.website, Company.domain, Company.owner_id)
                     .where(Company.id == company_id)).first() if company_id else None
    return dict(row._mapping) if row else None


def hold_deal_and_company(db: Session, deal_id: str | None, company_id: str) -> str | None:
    """Keep the deal (when given) and the company from being deleted until the transaction ends (`FOR KEY SHARE`,
    the lock a foreign key to them takes; updates go on), for a row about to name them written after a slow
    call (research): "Deal" or "Company" when it is gone meanwhile, else None."""
    for model, record_id in ((Deal, deal_id), (Company, company_id)):
        if record_id and db.scalar(select(model.id).where(model.id == record_id)
                                   .with_for_update(read=True, key_share=True)) is None:
            return model.__name__
    return None


def mark_deal_won(db: Session, deal_id: str) -> dict | None:
    """Move a deal to won (proposals' onboarding on accept, the deal's row locked by the caller): `{company_id,
    changed}`, `changed` whether its status really moved to won now (False for a deal already won), or None when
    it does not exist. One statement for a deal moved to won, two for one already won or missing."""
    row = db.execute(update(Deal).where(Deal.id == deal_id, Deal.status != "won").values(status="won")
                     .returning(Deal.company_id)).first()
    if row is not None:
        return {"company_id": row.company_id, "changed": True}
    company_id = db.execute(select(Deal.company_id).where(Deal.id == deal_id)).first()
    return {"company_id": company_id[0], "changed": False} if company_id else None


def mark_client(db: Session, company_id: str) -> bool:
    """A prospect becomes a client, with its client profile made with defaults (proposals' onboarding on accept: a
    company that accepted a proposal has a signed contract, a project and an invoice with the agency); whether it was
    a prospect. One statement for a client already, two for a prospect; nothing for a missing company."""
    if not db.execute(update(Company).where(Company.id == company_id, Company.status != "client")
                      .values(status="client")
                      .execution_options(synchronize_session=False)).rowcount:
        return False
    from chalicelib.areas.clients import service as clients_service

    clients_service.ensure_client_profile(db, company_id)
    return True


def company_table():
    """The companies table, for another area's list that joins and sorts by a company's name in its one
    statement (clients: the profiles list)."""
    return Company.__table__


def make_client(ctx, company_id: str) -> None:
    """The company (404 when missing) becomes a client, with its client profile (the clients area's profile
    create)."""
    company = load_company(ctx, company_id)
    if company.status != "client":
        company.status = "client"
        ctx.db.flush()
    _client_profile(ctx, company)


def _client_profile(ctx, company: Company) -> None:
    """A company that is a client has a client profile (decisions.md section 6): made with defaults."""
    from chalicelib.areas.clients import service as clients_service

    if company.status == "client":
        clients_service.ensure_client_profile(ctx.db, company.id)


def deal_brief(db: Session, deal_id: str) -> dict | None:
    """`{"id", "title", "status"}` of a deal, or None when it does not exist."""
    if not deal_id:
        return None
    row = db.execute(select(Deal.id, Deal.title, Deal.status).where(Deal.id == deal_id)).first()
    return {"id": row.id, "title": row.title, "status": row.status} if row else None


def link_deal(ctx, deal_id: str) -> bool:
    """Whether the caller may name the deal on a record of another area about to name it (a task, a budget):
    `deals:view` (`ctx.reads`: a job's context reads all) and an existing deal (decisions.md section 5; answered as a
    missing one without the tool). The row
    is share-locked (FOR KEY SHARE), so the write waits for a delete of the deal in progress and then finds it
    gone, instead of naming a deleted deal; it also waits for an edit of the deal in progress (`update_deal` locks
    the row FOR UPDATE), never for a write of another deal."""
    return bool(deal_id) and ctx.reads("deals") and lock_row(ctx.db, Deal, deal_id, key_share=True) is not None


def link_company(ctx, company_id: str) -> bool:
    """Whether the caller may name the company on a record of another area about to name it (a task, a page):
    `deals:view` and an existing company, share-locked as `link_deal`: the write waits for a delete of the company in
    progress (`delete_company` locks the row first) and then finds it gone, instead of naming a deleted company."""
    return (bool(company_id) and ctx.reads("deals")
            and lock_row(ctx.db, Company, company_id, key_share=True) is not None)


def company_seen(ctx, company_id: str) -> bool:
    """Whether the caller sees the company: `deals:view` (`ctx.reads`) and an existing company (the references of
    budgets, invoices and proposals; not locked)."""
    return bool(company_id) and ctx.reads("deals") and bool(company_names(ctx.db, [company_id]))


def contact_seen(ctx, contact_id: str) -> bool:
    """Whether the caller sees the contact: `deals:view` (`ctx.reads`) and an existing contact (not locked)."""
    return bool(contact_id) and ctx.reads("deals") and bool(contact_names(ctx.db, [contact_id]))


def deal_seen(ctx, deal_id: str) -> bool:
    """Whether the caller sees the deal: `deals:view` (`ctx.reads`) and an existing deal (not locked)."""
    return bool(deal_id) and ctx.reads("deals") and deal_brief(ctx.db, deal_id) is not None


_SEEN = {"company_id": ("company", company_seen), "contact_id": ("contact", contact_seen),
         "deal_id": ("deal", deal_seen)}


def unseen_references(ctx, values: dict, fields, changed) -> list[dict]:
    """The 400 details of a body's references to the sales directory (`fields`: of company_id, contact_id and
    deal_id) that name a record the caller does not see; a field left out, null, or unchanged (`changed(field)`
    false) is not checked."""
    details = []
    for field in fields:
        what, seen = _SEEN[field]
        if values.get(field) and changed(field) and not seen(ctx, values[field]):
            details.append({"field": field, "message": f"must be an existing {what} you can see"})
    return details


def _page(query_page: int) -> tuple[int, int]:
    return (query_page - 1) * PAGE_SIZE, PAGE_SIZE


# ---- companies ---------------------------------------------------------------------------------

def list_companies(ctx, *, search: str | None, page: int) -> tuple[list[dict], int]:
    """One page of 50 companies and the total (two queries)."""
    conditions = []
    if search:
        conditions.append(contains_text(search, Company.name, Company.domain))
    total = count_of(ctx.db, Company, *conditions)
    offset, limit = _page(page)
    rows = ctx.db.execute(
        company_select().where(*conditions).order_by(func.lower(Company.name), Company.id).offset(offset).limit(limit)
    ).all()
    return [company_out(company, owner) for company, owner in rows], total


def get_company(ctx, *, company_id: str) -> tuple[dict, list[dict], list[dict]]:
    """The company, its contacts and its deals (at most DETAIL_LIMIT each, the cap enforced on write)."""
    company = company_record(ctx.db, company_id)
    contacts = contact_rows(ctx.db, Contact.company_id == company_id, limit=DETAIL_LIMIT)
    return company, contacts, deal_rows(ctx.db, Deal.company_id == company_id)


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
    _client_profile(ctx, company)
    return company_record(ctx.db, company.id)


def update_company(ctx, *, company_id: str, data) -> dict:
    company = load_company(ctx, company_id)
    changes = data.changes()
    # an owner sent back as stored is not checked again (a company whose owner was deactivated since can be PUT
    # back as it was read)
    _check_company_refs(ctx.db, {k: v for k, v in changes.items() if v != getattr(company, k)})
    for key, value in changes.items():
        setattr(company, key, value)
    ctx.db.flush()
    _client_profile(ctx, company)
    return company_record(ctx.db, company_id)


def delete_company(ctx, *, company_id: str) -> None:
    """409 while deals reference the company; its contacts are kept and detached, its tasks (a portal request made
    without a project is one) kept and no longer linked to it (tasks' `company_deleted`). The company's row is locked
    first: a task being linked to it waits (`link_company`), and a task linked before is unlinked."""
    from chalicelib.areas.notes import service as notes_service  # other areas: imported lazily
    from chalicelib.areas.tasks import service as tasks_service

    company = lock_row(ctx.db, Company, company_id, where=visible(ctx.principal), missing="Company")
    deals = count_of(ctx.db, Deal, Deal.company_id == company_id)
    if deals:
        raise Conflict(f"Company has {deals} deal(s); move or delete them first")
    tasks_service.company_deleted(ctx.db, company.id)
    notes_service.records_deleted(ctx.db, "company", [company.id])  # its notes go with it (session 23)
    ctx.db.execute(update(Contact).where(Contact.company_id == company_id).values(company_id=None)
                   .execution_options(synchronize_session=False))
    ctx.db.delete(company)
    ctx.db.flush()


# ---- contacts ----------------------------------------------------------------------------------

def list_contacts(ctx, *, search: str | None, company_id: str | None, page: int) -> tuple[list[dict], int]:
    """One page of 50 contacts and the total (two queries)."""
    conditions = []
    if search:
        full_name = Contact.first_name + " " + func.coalesce(Contact.last_name, "")
        conditions.append(contains_text(search, full_name, Contact.email))
    if company_id:
        conditions.append(Contact.company_id == company_id)
    total = count_of(ctx.db, Contact, *conditions)
    offset, limit = _page(page)
    return contact_rows(ctx.db, *conditions, limit=limit, offset=offset), total


def get_contact(ctx, *, contact_id: str) -> tuple[dict, list[dict]]:
    """The contact and its deals (at most DETAIL_LIMIT, the cap enforced on write)."""
    return contact_record(ctx.db, contact_id), deal_rows(ctx.db, Deal.contact_id == contact_id)


def create_contact(ctx, *, data) -> dict:
    values = data.model_dump()
    if values.get("company_id"):
        require_company(ctx.db, values["company_id"])
        check_room(ctx.db, Company, "contacts", Contact, Contact.company_id, values["company_id"])
    contact = Contact(**values, created_by=ctx.user_id)
    ctx.db.add(contact)
    ctx.db.flush()
    return contact_record(ctx.db, contact.id)


def update_contact(ctx, *, contact_id: str, data) -> dict:
    contact = load_contact(ctx, contact_id)
    changes = data.changes()
    if changes.get("company_id"):
        require_company(ctx.db, changes["company_id"])
        if changes["company_id"] != contact.company_id:
            check_room(ctx.db, Company, "contacts", Contact, Contact.company_id, changes["company_id"])
    for key, value in changes.items():
        setattr(contact, key, value)
    ctx.db.flush()
    return contact_record(ctx.db, contact_id)


def delete_contact(ctx, *, contact_id: str) -> None:
    """Deals that named the contact keep going without one (contact_id becomes null). Its relationship actions go
    with it (their key cascades) and the relationships area deletes their action-centre items. The contact's row
    is locked first: an action made for it meanwhile waits, then finds it gone, instead of leaving an item behind."""
    from chalicelib.areas.notes import service as notes_service  # other areas: imported lazily
    from chalicelib.areas.relationships import service as relationships_service

    contact = lock_row(ctx.db, Contact, contact_id, where=visible(ctx.principal), missing="Contact")
    relationships_service.contact_deleted(ctx, contact_id=contact.id)
    notes_service.records_deleted(ctx.db, "contact", [contact.id])  # its notes go with it (session 23)
    ctx.db.execute(update(Deal).where(Deal.contact_id == contact_id).values(contact_id=None)
                   .execution_options(synchronize_session=False))
    ctx.db.delete(contact)
    ctx.db.flush()
