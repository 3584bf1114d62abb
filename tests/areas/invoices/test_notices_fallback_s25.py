"""Session 25: an overdue (or paid-in-the-ledger) invoice none of whose usual recipients may read it (a deal budget's or
budget-less invoice whose creator left, or was never set: the draft an accept made; a project's whose owner, delivery
manager and creator left) was marked told and told nobody, for good. Now the first who may read it among the deal's
owner (a deal's budget) and the company's owner is told; when a usual recipient may read it, nothing changes
(docs/decisions/invoices.md, "Notifications", session 25)."""
from datetime import timedelta
from decimal import Decimal
from types import SimpleNamespace

import pytest
from sqlalchemy import select

from chalicelib.areas.invoices.models import Invoice
from chalicelib.core.notify import Notification
from chalicelib.core.timeutil import org_today
from tests.areas.budgets.factories import make_budget
from tests.areas.deals.factories import make_company, make_deal
from tests.areas.invoices.factories import make_invoice
from tests.areas.projects.factories import make_project
from tests.factories import deactivate, grant, make_user


def _told(db, type, invoice_id) -> list[str]:
    db.expire_all()
    return sorted(db.scalars(select(Notification.user_id).where(Notification.type == type,
                                                                Notification.resource_id == invoice_id)))


def _overdue(db, **values) -> Invoice:
    values = {"status": "sent", "issued_date": org_today() - timedelta(days=40),
              "due_date": org_today() - timedelta(days=2), "total": Decimal("1100"), "amount_paid": Decimal("0"),
              "amount_due": Decimal("1100"), **values}
    return make_invoice(db, **values)


def _scan():
    from chalicelib.areas.invoices import jobs

    return jobs.invoice_overdue_scan()


@pytest.fixture
def sale(db):
    """A deal of Acme owned by a seller (executive), Acme owned by a boss (executive), the deal's budget, and the
    creator of its invoices (executive)."""
    seller = make_user(db, access_level="executive", name="Sam Seller")
    boss = make_user(db, access_level="executive", name="Carl Company")
    creator = make_user(db, access_level="executive", name="Cid Creator")
    company = make_company(db, name="Acme Pty", owner_id=boss.id)
    deal = make_deal(db, company_id=company.id, owner_id=seller.id)
    budget = make_budget(db, resource_type="deal", resource_id=deal.id, company_id=company.id)
    return SimpleNamespace(seller=seller, boss=boss, creator=creator, company=company, deal=deal, budget=budget)


def test_overdue_of_a_deal_budget_invoice_whose_creator_left_tells_the_deal_owner(db, sale):
    invoice = _overdue(db, company_id=sale.company.id, budget_id=sale.budget.id, created_by=sale.creator.id)
    deactivate(db, sale.creator)
    assert _scan() == {"overdue": 1, "notified": 1}
    assert _told(db, "invoice_overdue", invoice.id) == [sale.seller.id]  # the deal's owner, not also the company's
    db.expire_all()
    assert db.get(Invoice, invoice.id).overdue_noticed_for == invoice.due_date


def test_overdue_of_an_invoice_without_a_creator_tells_the_deal_owner_or_the_company_owner(db, sale):
    """An accept's draft has no creator. A deal owner who left too: the company's owner; an invoice without a budget
    (no deal): the company's owner."""
    of_deal = _overdue(db, company_id=sale.company.id, budget_id=sale.budget.id, created_by=None)
    assert _scan() == {"overdue": 1, "notified": 1}
    assert _told(db, "invoice_overdue", of_deal.id) == [sale.seller.id]
    deactivate(db, sale.seller)
    other_deal = make_deal(db, company_id=sale.company.id, owner_id=sale.seller.id)
    left = _overdue(db, company_id=sale.company.id, created_by=None,
                    budget_id=make_budget(db, resource_type="deal", resource_id=other_deal.id).id)
    loose = _overdue(db, company_id=sale.company.id, budget_id=None, created_by=sale.creator.id)
    deactivate(db, sale.creator)
    assert _scan() == {"overdue": 2, "notified": 2}
    assert _told(db, "invoice_overdue", left.id) == [sale.boss.id]
    assert _told(db, "invoice_overdue", loose.id) == [sale.boss.id]


def test_the_fallback_is_the_first_who_may_read_the_invoice(db, sale):
    """A deal owner who cannot read the invoice (their invoices permission taken away) is passed over for the
    company's owner; nobody who may read it: nobody told, as before."""
    grant(db, sale.seller, "invoices", "none")
    deal = sale.deal
    invoice = _overdue(db, company_id=sale.company.id, created_by=None,
                       budget_id=make_budget(db, resource_type="deal", resource_id=deal.id).id)
    assert _scan() == {"overdue": 1, "notified": 1}
    assert _told(db, "invoice_overdue", invoice.id) == [sale.boss.id]
    deactivate(db, sale.boss)
    nobody = _overdue(db, company_id=sale.company.id, created_by=None,
                      budget_id=make_budget(db, resource_type="deal", resource_id=deal.id).id)
    assert _scan() == {"overdue": 1, "notified": 0}
    assert _told(db, "invoice_overdue", nobody.id) == []


def test_overdue_of_a_project_invoice_whose_managers_and_creator_left_tells_the_company_owner(db, sale):
    owner, delivery = make_user(db, name="Olga Owner"), make_user(db, access_level="lead", name="Dan Delivery")
    project = make_project(db, owner_id=owner.id, delivery_manager_id=delivery.id, company_id=sale.company.id)
    budget = make_budget(db, resource_id=project.id, company_id=sale.company.id)
    invoice = _overdue(db, company_id=sale.company.id, budget_id=budget.id, created_by=sale.creator.id)
    deactivate(db, owner, delivery, sale.creator)
    assert _scan() == {"overdue": 1, "notified": 1}
    assert _told(db, "invoice_overdue", invoice.id) == [sale.boss.id]


def test_a_usual_recipient_who_may_read_it_leaves_the_fallback_out(db, sale):
    """The creator of a deal budget's invoice, and the delivery manager of a project's (its owner and creator left):
    told as before, neither the deal's owner nor the company's owner."""
    delivery = make_user(db, access_level="lead")
    gone = make_user(db)
    project = make_project(db, owner_id=gone.id, delivery_manager_id=delivery.id, company_id=sale.company.id)
    of_project = _overdue(db, company_id=sale.company.id, created_by=gone.id,
                          budget_id=make_budget(db, resource_id=project.id, company_id=sale.company.id).id)
    of_deal = _overdue(db, company_id=sale.company.id, budget_id=sale.budget.id, created_by=sale.creator.id)
    deactivate(db, gone)
    assert _scan() == {"overdue": 2, "notified": 2}
    assert _told(db, "invoice_overdue", of_deal.id) == [sale.creator.id]
    assert _told(db, "invoice_overdue", of_project.id) == [delivery.id]


def test_the_ledger_sync_tells_the_deal_owner_of_a_paid_invoice_whose_creator_left(api, db, sale):
    """The sync run by a user who is none of its recipients: the fallback is told; run by its creator (a usual
    recipient, who acted): nobody else."""
    from tests.areas.invoices.test_notices import _in_ledger, _pay_in_ledger

    syncer = make_user(db, access_level="executive")
    invoice = make_invoice(db, company_id=sale.company.id, budget_id=sale.budget.id, created_by=sale.creator.id,
                           total=Decimal("1100"), amount_due=Decimal("1100"))
    _in_ledger(db, invoice)
    _pay_in_ledger(db, [invoice])
    deactivate(db, sale.creator)
    assert api.post("/api/invoices/sync-ledger", as_=syncer).json["updated"] == 1
    assert _told(db, "invoice_paid", invoice.id) == [sale.seller.id]
    own = make_invoice(db, company_id=sale.company.id, budget_id=sale.budget.id, created_by=syncer.id,
                       total=Decimal("1100"), amount_due=Decimal("1100"))
    _in_ledger(db, own)
    _pay_in_ledger(db, [own])
    assert api.post("/api/invoices/sync-ledger", as_=syncer).json["updated"] == 1
    assert _told(db, "invoice_paid", own.id) == []


def test_the_overdue_scan_with_fallbacks_costs_the_same_statements_for_few_and_many(db, count_queries, aws):
    """2 and 12 overdue invoices, each of its own deal (its owner an executive) and company (its owner an executive),
    half without a creator and half with one who left; the deal owners of half of those left too (their company's
    owner is told): the same statements."""
    counts = []
    for size in (2, 12):
        for index in range(size):
            company = make_company(db, owner_id=make_user(db, access_level="executive").id)
            seller = make_user(db, access_level="executive")
            deal = make_deal(db, company_id=company.id, owner_id=seller.id)
            creator = make_user(db, access_level="executive") if index % 2 else None
            _overdue(db, company_id=company.id, created_by=creator and creator.id,
                     budget_id=make_budget(db, resource_type="deal", resource_id=deal.id).id)
            deactivate(db, *([creator] if creator else []), *([seller] if index % 4 < 2 else []))
        with count_queries() as counter:
            assert _scan() == {"overdue": size, "notified": size}
        counts.append(counter.count)
    assert counts[0] == counts[1], counts
