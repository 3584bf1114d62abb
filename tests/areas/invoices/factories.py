"""Factories of the invoices area."""
from __future__ import annotations

import itertools
from datetime import date
from decimal import Decimal

from chalicelib.areas.invoices.models import Invoice, InvoiceLineItem

_seq = itertools.count(1)


def make_invoice(db, **overrides) -> Invoice:
    values = {"invoice_number": f"T-{next(_seq):06d}", "status": "draft", "currency": "AUD",
              "issued_date": date(2026, 3, 1), "subtotal": Decimal("0"), "tax": Decimal("0"), "total": Decimal("0"),
              "amount_paid": Decimal("0")}
    values.update(overrides)
    invoice = Invoice(**values)
    db.add(invoice)
    db.flush()
    return invoice


def make_invoice_item(db, invoice: Invoice, **overrides) -> InvoiceLineItem:
    values = {"description": f"Line {next(_seq)}", "quantity": Decimal("1"), "unit_price": Decimal("100"),
              "position": 0}
    values.update(overrides)
    values["amount"] = Decimal(values["quantity"]) * Decimal(values["unit_price"])
    item = InvoiceLineItem(invoice_id=invoice.id, **values)
    db.add(item)
    db.flush()
    return item
