"""An invoice line item sent back unchanged writes nothing (session 22, docs/decisions/invoices.md "Line items sent
back unchanged"). Audit: it wrote a `line_item_updated` entry of `{item_id, total}` only and recalculated the totals
(touching the invoice) although nothing had changed."""
from __future__ import annotations

from decimal import Decimal

from chalicelib.areas.invoices.models import Invoice, InvoiceLineItem
from chalicelib.core import history
from chalicelib.core.schemas import PageQuery
from tests.areas.invoices.factories import make_invoice, make_invoice_item


def _updates(db, invoice_id):
    entries = history.entries(db, entity_type="invoice", entity_id=invoice_id, query=PageQuery()).items
    return [e["changes"] for e in entries if e["action"] == "line_item_updated"]


def _stamps(db, invoice_id, item_id):
    db.expire_all()
    return db.get(Invoice, invoice_id).updated_at, db.get(InvoiceLineItem, item_id).updated_at


def test_invoice_line_item_sent_back_unchanged_logs_no_history(api, db, exec_user):
    invoice = make_invoice(db, subtotal=Decimal("200"), tax=Decimal("20"), total=Decimal("220"))
    item = make_invoice_item(db, invoice, description="Design", quantity=Decimal("2"), unit_price=Decimal("100"))
    stamps = _stamps(db, invoice.id, item.id)
    answer = api.put(f"/api/invoices/{invoice.id}/line-items/{item.id}", as_=exec_user,
                     json={"description": "Design", "quantity": 2, "unit_price": 100, "position": 0})
    assert answer.status == 200, answer
    assert _updates(db, invoice.id) == []
    assert _stamps(db, invoice.id, item.id) == stamps  # neither the line nor the invoice touched


def test_invoice_line_item_changed_is_recorded_with_the_new_total(api, db, exec_user):
    invoice = make_invoice(db, subtotal=Decimal("100"), tax=Decimal("10"), total=Decimal("110"))
    item = make_invoice_item(db, invoice, description="Design")
    answer = api.put(f"/api/invoices/{invoice.id}/line-items/{item.id}", as_=exec_user,
                     json={"description": "Design", "quantity": 3, "unit_price": 100})
    assert answer.status == 200, answer
    assert _updates(db, invoice.id) == [{"item_id": item.id, "quantity": {"from": 1.0, "to": 3.0},
                                         "amount": {"from": 100.0, "to": 300.0}, "total": 330.0}]
