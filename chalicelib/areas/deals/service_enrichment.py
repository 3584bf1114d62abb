"""Enrichment of companies and contacts from the professional-network data provider (People Data Labs).

Company: a company enrich by name and domain (or website); the raw record is stored in network_data with
network_enriched_at. Contact: a person enrich by network_url when the contact has one, otherwise a person
search by name, e-mail and company name; the normalised record is stored, and a found profile URL is saved
when the contact had none. One enrichment per 24 hours (409) unless `force=true`; no data found is a 400; a
missing record 404. The provider is called after the read transaction is released, and the 24-hour guard is
checked again under a row lock before writing (two concurrent enrichments write once).
"""
from __future__ import annotations

from datetime import timedelta

from chalicelib.core.allowance import allow
from chalicelib.core.errors import BadRequest, Conflict, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_row

from .models import Company, Contact
from .queries import company_names, contact_name, load_company, load_contact

GUARD = timedelta(hours=24)  # document 2, Limits: one enrichment per 24 hours unless force=true


def _guard(record, force: bool) -> None:
    enriched = record.network_enriched_at
    if not force and enriched is not None and utcnow() - enriched < GUARD:
        raise Conflict("Already enriched within the last 24 hours; use force=true to enrich again",
                       extra={"network_enriched_at": enriched.isoformat().replace("+00:00", "Z")})


def _store(ctx, model, record_id: str, what: str, force: bool, data: dict):
    """The record, locked and checked against the 24-hour guard again, with `data` stored as its network data."""
    record = lock_row(ctx.db, model, record_id)
    if record is None:
        raise not_found(what)
    _guard(record, force)
    record.network_data = data
    record.network_enriched_at = utcnow()
    return record


def enrich_company(ctx, *, company_id: str, force: bool) -> dict:
    from chalicelib.providers.enrichment import get_enrichment

    company = load_company(ctx, company_id)
    _guard(company, force)
    allow(ctx, "enrichment")  # a credit each (force skips the guard): 429 past the caller's hourly allowance
    name, website = company.name, company.domain or company.website
    provider = get_enrichment()  # 503 when off or unconfigured, before any call
    ctx.release_connection()
    record = provider.enrich_company(name=name, website=website)
    if not record:
        raise BadRequest("No data found for this company")
    _store(ctx, Company, company_id, "Company", force, record)
    ctx.db.flush()
    return {"success": True, "network_data": record}


def enrich_contact(ctx, *, contact_id: str, force: bool) -> dict:
    from chalicelib.providers.enrichment import get_enrichment
    from chalicelib.providers.enrichment.base import normalise_person

    contact = load_contact(ctx, contact_id)
    _guard(contact, force)
    allow(ctx, "enrichment")  # a credit each (force skips the guard): 429 past the caller's hourly allowance
    profile_url = contact.network_url
    name = contact_name(contact.first_name, contact.last_name)
    email = contact.email
    company = company_names(ctx.db, [contact.company_id]).get(contact.company_id) if contact.company_id else None
    provider = get_enrichment()
    ctx.release_connection()
    if profile_url:
        record = provider.enrich_person(profile_url=profile_url)
    else:
        record = provider.search_person(name=name, email=email, company=company)
    if not record:
        raise BadRequest("No data found for this contact")
    data = normalise_person(record)
    contact = _store(ctx, Contact, contact_id, "Contact", force, data)
    if not contact.network_url and data.get("profile_url"):
        contact.network_url = data["profile_url"][:500]
    ctx.db.flush()
    return {"success": True, "network_data": data}
