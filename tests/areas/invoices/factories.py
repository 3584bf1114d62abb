"""Factories of the invoices area."""
from __future__ import annotations

import itertools
from datetime import date
from decimal import Decimal

from sqlalchemy import update

from chalicelib.areas.invoices.models import Invoice, InvoiceLineItem
from chalicelib.providers.ledger.sandbox import SandboxLedger
from tests.areas.deals.factories import make_company
from tests.factories import add_row, priced_line

_seq = itertools.count(1)


def make_invoice(db, **overrides) -> Invoice:
    values = {"invoice_number": f"T-{next(_seq):06d}", "status": "draft", "currency": "AUD",
              "issued_date": date(2026, 3, 1), "subtotal": Decimal("0"), "tax": Decimal("0"), "total": Decimal("0"),
              "amount_paid": Decimal("0")}
    return add_row(db, Invoice, values, overrides)


def make_invoice_item(db, invoice: Invoice, **overrides) -> InvoiceLineItem:
    return add_row(db, InvoiceLineItem, priced_line(next(_seq), overrides), {}, invoice_id=invoice.id)


def ready_invoice(db) -> Invoice:
    """An invoice of Acme Pty (due 1 April 2026) with a line (2 x 500 of design), totalled 1,100 with tax, not yet in
    the ledger."""
    invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, due_date=date(2026, 4, 1))
    make_invoice_item(db, invoice, description="Design", quantity=Decimal("2"), unit_price=Decimal("500"))
    invoice.subtotal, invoice.tax, invoice.total = Decimal("1000"), Decimal("100"), Decimal("1100")
    db.flush()
    return invoice


def retry_links_meanwhile(db, monkeypatch, invoice: Invoice) -> None:
    """The sandbox ledger's `create_invoice` patched (`monkeypatch`): once it has made the ledger invoice, `invoice`
    is linked to it (finalised, DRAFT in the ledger) before the answer comes back, as a retry of the push (the same
    key, answered the same ledger invoice) would have linked it meanwhile."""
    real = SandboxLedger.create_invoice

    def retry_linked_it_meanwhile(self, pushed, **kwargs):
        answer = real(self, pushed, **kwargs)
        db.execute(update(Invoice).where(Invoice.id == invoice.id)
                   .values(ledger_invoice_id=answer["ledger_invoice_id"], ledger_status="DRAFT", status="finalised"))
        return answer

    monkeypatch.setattr(SandboxLedger, "create_invoice", retry_linked_it_meanwhile)
