"""Factories of the deals area: companies, contacts, deals (add, flush, return)."""
from __future__ import annotations

import itertools

from chalicelib.areas.deals.models import Company, Contact, Deal

_seq = itertools.count(1)


def make_company(db, **overrides) -> Company:
    values = {"name": f"Company {next(_seq)}", "status": "prospect"}
    values.update(overrides)
    company = Company(**values)
    db.add(company)
    db.flush()
    return company


def make_contact(db, **overrides) -> Contact:
    values = {"first_name": f"Contact{next(_seq)}"}
    values.update(overrides)
    contact = Contact(**values)
    db.add(contact)
    db.flush()
    return contact


def make_deal(db, **overrides) -> Deal:
    values = {"title": f"Deal {next(_seq)}", "status": "open", "currency": "AUD"}
    values.update(overrides)
    deal = Deal(**values)
    db.add(deal)
    db.flush()
    return deal
