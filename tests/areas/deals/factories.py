"""Factories of the deals area: companies, contacts, deals (add, flush, return)."""
from __future__ import annotations

import itertools

from chalicelib.areas.deals.models import Company, Contact, Deal
from tests.factories import add_row

_seq = itertools.count(1)


def make_company(db, **overrides) -> Company:
    return add_row(db, Company, {"name": f"Company {next(_seq)}", "status": "prospect"}, overrides)


def make_contact(db, **overrides) -> Contact:
    return add_row(db, Contact, {"first_name": f"Contact{next(_seq)}"}, overrides)


def make_deal(db, **overrides) -> Deal:
    return add_row(db, Deal, {"title": f"Deal {next(_seq)}", "status": "open", "currency": "AUD"}, overrides)


# ---------------------------------------------------------------- a company's onboarding, through the API

def default_onboarding(api, user, milestone: str, source: str) -> None:
    """The onboarding template "Default" (onboarding's test `template`) made by `user` and made the default, its
    milestone `milestone` completed automatically by `source` (e.g. "Contract signed" by "deal_won")."""
    from tests.areas.onboarding.test_onboarding import BASE, template

    ids = template(api, user, "Default")
    api.patch(f"{BASE}/{ids['template']}", as_=user, json={"is_default": True})
    api.patch(f"{BASE}/milestones/{ids[milestone]}", as_=user, json={"auto_source": source})


def onboarding_done(api, user, company_id):
    """The company's completed onboarding milestones as {title: source}, as `user` reads them; None when the company
    has no onboarding."""
    progress = api.get(f"/api/clients/{company_id}/onboarding", as_=user).json["onboarding"]
    if progress is None:
        return None
    return {m["title"]: m["source"] for s in progress["stages"] for m in s["milestones"] if m["completed_at"]}
