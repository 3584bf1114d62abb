"""The deals area's leaf module: the scope clause `visible` (every holder of deals:view sees every company,
contact and deal), the load-or-404 helpers `load_company` and `load_contact` (a deal is read or locked with `visible`
by service_deals), the reference checks, the record builders and the read queries. service.py and
service_deals.py import it, never the reverse."""
from __future__ import annotations

from functools import cache

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from chalicelib.core.errors import Conflict, bad_field, not_found
from chalicelib.core.locks import lock_row
from chalicelib.core.models import ConfigList, ConfigListItem, User
from chalicelib.core.lookup import ids_read
from chalicelib.core.query import LIST_LIMIT, Read, record_rows, visible_row
from chalicelib.core.readers import readers, seen_by as query_seen_by
from chalicelib.core.serialize import row_dict

from .models import Company, Contact, Deal

COMPANY_FIELDS = ("id", "name", "domain", "website", "industry", "phone", "address", "status", "owner_id",
                  "network_data", "network_enriched_at", "created_by", "created_at", "updated_at")
CONTACT_FIELDS = ("id", "first_name", "last_name", "email", "phone", "job_title", "company_id", "network_url",
                  "network_data", "network_enriched_at", "created_by", "created_at", "updated_at")
DEAL_FIELDS = ("id", "title", "company_id", "contact_id", "owner_id", "stage_id", "value", "currency", "status",
               "website", "created_by", "created_at", "updated_at")
STAGE_LIST = "deal_stage"
# A company holds at most this many contacts and deals, a contact at most this many deals (409 beyond,
# counted under a lock on the company or contact row), so the details answer them all.
DETAIL_LIMIT = LIST_LIMIT


def visible(principal):
    """WHERE clause of the records the principal may see: None, every one (no data scoping)."""
    return None


def load_company(ctx, company_id: str) -> Company:
    return visible_row(ctx.db, Company, company_id, visible(ctx.principal), "Company")


def load_contact(ctx, contact_id: str) -> Contact:
    return visible_row(ctx.db, Contact, contact_id, visible(ctx.principal), "Contact")


def seen_by(db, kind: str, record_id: str, principals) -> set[str]:
    """Which of these principals see the record (`kind`: company, contact or deal): the scope clause as each of them,
    in one statement (a UNION ALL; none for no principals). The notes area asks it of the users a note mentions."""
    return query_seen_by(db, {"company": Company, "contact": Contact, "deal": Deal}[kind], record_id, principals, visible)


def deal_readers(db, deal_id: str, user_ids) -> set[str]:
    """Which of these users may read the deal: the active holders of `deals:view` (deals are not scoped, so every
    holder reads every deal), in one statement whatever their number (core.readers.readers); none for no users. A
    deal's notice names the deal only to them."""
    return readers(db, Deal, deal_id, user_ids, tool="deals", scope_of=visible)


# ---- reference checks ---------------------------------------------------------------------------

def require_user(db: Session, user_id: str, field: str) -> None:
    """400 on `field` when the id names no user, or a deactivated one: an owner who cannot sign in holds the
    company or deal with nobody to act on it (one statement reads both)."""
    row = db.execute(select(User.is_active).where(User.id == user_id)).first()
    if row is None:
        raise bad_field(field, "does not match a user")
    if not row.is_active:
        raise bad_field(field, "must be an active user")


def require_company(db: Session, company_id: str, field: str = "company_id") -> None:
    if db.get(Company, company_id) is None:
        raise bad_field(field, "does not match a company")


def stage_query():
    """Ids of the items of the config list `deal_stage`."""
    return select(ConfigListItem.id).join(ConfigList, ConfigList.id == ConfigListItem.list_id).where(
        ConfigList.key == STAGE_LIST)


def count_of(db: Session, model, *conditions) -> int:
    return db.scalar(select(func.count()).select_from(model).where(*conditions)) or 0


def check_room(db: Session, parent, what: str, model, column, parent_id: str) -> None:
    """409 when the `parent` row (a company or contact) already holds DETAIL_LIMIT `model` rows; the parent
    row is locked first, so concurrent writes cannot pass the cap together. Callers pass an id (they check first)."""
    lock_row(db, parent, parent_id)
    if count_of(db, model, column == parent_id) >= DETAIL_LIMIT:
        raise Conflict(f"A {parent.__name__.lower()} holds at most {DETAIL_LIMIT} {what}")


# ---- companies ------------------------------------------------------------------------------------

def company_out(company: Company, owner_name: str | None) -> dict:
    out = row_dict(company, COMPANY_FIELDS)
    out["owner_name"] = owner_name
    return out


def company_select():
    return select(Company, User.name).outerjoin(User, User.id == Company.owner_id)


def company_record(db: Session, company_id: str) -> dict:
    row = db.execute(company_select().where(Company.id == company_id)).first()
    if row is None:
        raise not_found("Company")
    return company_out(*row)


# ---- contacts -------------------------------------------------------------------------------------

def contact_name(first_name: str | None, last_name: str | None) -> str | None:
    name = " ".join(part for part in (first_name, last_name) if part)
    return name or None


def contact_out(contact: Contact, company_name: str | None) -> dict:
    out = row_dict(contact, CONTACT_FIELDS)
    out["name"] = contact_name(contact.first_name, contact.last_name)
    out["company_name"] = company_name
    return out


def contact_select():
    return select(Contact, Company.name).outerjoin(Company, Company.id == Contact.company_id)


def contact_order():
    return (func.lower(Contact.first_name), func.lower(func.coalesce(Contact.last_name, "")), Contact.id)


def contact_rows(db: Session, *conditions, limit: int, offset: int = 0) -> list[dict]:
    rows = db.execute(contact_select().where(*conditions).order_by(*contact_order()).offset(offset).limit(limit))
    return [contact_out(contact, company_name) for contact, company_name in rows]


def contact_record(db: Session, contact_id: str) -> dict:
    row = db.execute(contact_select().where(Contact.id == contact_id)).first()
    if row is None:
        raise not_found("Contact")
    return contact_out(*row)


# ---- deals ----------------------------------------------------------------------------------------

@cache
def deal_select():
    """Deals as records: DEAL_FIELDS with their company's, owner's and stage's names and the contact's two names
    (`deal_records` makes contact_name of them), read without ORM instances (core.query.record_rows and
    record_page); built once per process."""
    return (
        select(*(getattr(Deal, name) for name in DEAL_FIELDS), Company.name.label("company_name"),
               Contact.first_name.label("contact_first_name"), Contact.last_name.label("contact_last_name"),
               User.name.label("owner_name"), ConfigListItem.label.label("stage_label"),
               ConfigListItem.color.label("stage_color"), ConfigListItem.probability.label("probability"))
        .outerjoin(Company, Company.id == Deal.company_id)
        .outerjoin(Contact, Contact.id == Deal.contact_id)
        .outerjoin(User, User.id == Deal.owner_id)
        .outerjoin(ConfigListItem, ConfigListItem.id == Deal.stage_id)
    )


def deal_records(records: list[dict]) -> list[dict]:
    """The records of `deal_select` with the contact's name made of its two (contact_name)."""
    for record in records:
        record["contact_name"] = contact_name(record.pop("contact_first_name"), record.pop("contact_last_name"))
    return records


def deal_order():
    return (Deal.created_at.desc(), Deal.id)


def deal_rows(db: Session, *conditions, limit: int = DETAIL_LIMIT) -> list[dict]:
    """Joined deal records, newest first (one query)."""
    return deal_records(record_rows(db, deal_select().where(*conditions).order_by(*deal_order()).limit(limit)))


def deal_record(db: Session, deal_id: str) -> dict:
    rows = record_rows(db, deal_select().where(Deal.id == deal_id))
    if not rows:
        raise not_found("Deal")
    return deal_records(rows)[0]


# ---- company names (other areas call them through the service) -----------------------------------

def company_names(db: Session, company_ids: list[str]) -> dict[str, str]:
    """`{company_id: name}` for the ids that exist (one query)."""
    read = company_names_select(db, company_ids)
    return {} if read is None else dict(db.execute(read.stmt, read.params).all())


def _company_names_statement(company_in):
    return select(Company.id, Company.name).where(company_in(Company.id))


def company_names_select(db, company_ids) -> Read | None:
    """The read of `company_names` (rows id, name; built once per process), None without ids: for a read that
    sends it with others in one round trip (core.query.record_sets)."""
    return ids_read(db, _company_names_statement, "company_name_ids", company_ids)


def _contact_names_statement(contact_in):
    return select(Contact.id, Contact.first_name, Contact.last_name).where(contact_in(Contact.id))


def contact_names_select(db, contact_ids) -> Read | None:
    """The read of `contact_names` (rows id, first_name, last_name; built once per process), None without ids."""
    return ids_read(db, _contact_names_statement, "contact_name_ids", contact_ids)
