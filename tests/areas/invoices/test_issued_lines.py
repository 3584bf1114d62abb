"""Lines of an invoice already issued to the client (local status approved, sent, paid) or voided do not change,
in the ledger or not, and a hand link must match the ledger invoice's money (session 22, docs/decisions/invoices.md,
"Lines of an issued invoice" and "Linking by hand and what the ledger holds").

Audit: a `paid` invoice (set by update, not in the ledger) had its lines and total changed, so profitability, the
portal's totals and the fixed price left to bill moved under money already collected; and the ledger's line freeze
was walked around by unlinking (`ledger_invoice_id: null`), editing the lines and linking the same ledger id back.
"""
from __future__ import annotations

from decimal import Decimal

import pytest

from chalicelib.areas.invoices.models import Invoice, InvoiceLineItem
from chalicelib.providers.ledger.sandbox import SandboxLedger
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item


def _line_writes(api, user, invoice, line, other):
    path = f"/api/invoices/{invoice.id}"
    return {
        "add": api.post(f"{path}/line-items", as_=user, json={"description": "Extra", "unit_price": 900}),
        "edit": api.put(f"{path}/line-items/{line.id}", as_=user, json={"unit_price": 5000}),
        "reorder": api.put(f"{path}/line-items/reorder", as_=user, json={"item_ids": [other.id, line.id]}),
        "remove": api.delete(f"{path}/line-items/{line.id}", as_=user),
    }


@pytest.mark.parametrize("status", ["approved", "sent", "paid", "voided"])
def test_the_lines_of_an_issued_or_voided_invoice_do_not_change(api, db, exec_user, status):
    invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id)
    line = make_invoice_item(db, invoice)
    other = make_invoice_item(db, invoice, position=1)
    path = f"/api/invoices/{invoice.id}"
    assert api.put(path, as_=exec_user, json={"status": status}).status == 200
    db.expire_all()
    total = db.get(Invoice, invoice.id).total
    answers = _line_writes(api, exec_user, invoice, line, other)
    assert {name: answer.status for name, answer in answers.items()} == dict.fromkeys(answers, 409)
    assert "draft" in answers["edit"].json["error"]  # the way out is named
    db.expire_all()
    assert db.get(Invoice, invoice.id).total == total
    assert db.get(InvoiceLineItem, line.id).unit_price == Decimal("100")
    # set back to draft (recorded in history): the lines are editable again
    assert api.put(path, as_=exec_user, json={"status": "draft"}).status == 200
    assert api.put(f"{path}/line-items/{line.id}", as_=exec_user, json={"unit_price": 5000}).status == 200


@pytest.mark.parametrize("status", ["draft", "finalised"])
def test_the_lines_of_an_invoice_not_issued_still_change(api, db, exec_user, status):
    invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, status=status)
    line = make_invoice_item(db, invoice)
    other = make_invoice_item(db, invoice, position=1)
    answers = _line_writes(api, exec_user, invoice, line, other)
    assert {name: answer.status for name, answer in answers.items()} == {
        "add": 201, "edit": 200, "reorder": 200, "remove": 200}


def test_an_unlinked_sent_invoice_keeps_its_lines(api, db, exec_user):
    """The auditor's walk-around: push, approve, send, unlink; the lines stay frozen (status sent)."""
    invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id)
    line = make_invoice_item(db, invoice)
    path = f"/api/invoices/{invoice.id}"
    for step in ("push-to-ledger", "ledger-approve", "ledger-send"):
        assert api.post(f"{path}/{step}", as_=exec_user).status == 200, step
    assert api.put(path, as_=exec_user, json={"ledger_invoice_id": None}).status == 200
    assert api.put(f"{path}/line-items/{line.id}", as_=exec_user, json={"unit_price": 1}).status == 409


def test_a_relink_after_the_lines_changed_is_refused(api, db, exec_user):
    """Unlink, set back to draft, edit the lines, link the same ledger invoice back: its total is not the invoice's
    any more, so the link is a 400 on ledger_invoice_id and nothing is written."""
    invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id)
    line = make_invoice_item(db, invoice)
    path = f"/api/invoices/{invoice.id}"
    for step in ("push-to-ledger", "ledger-approve", "ledger-send"):
        assert api.post(f"{path}/{step}", as_=exec_user).status == 200, step
    db.expire_all()
    ledger_id = db.get(Invoice, invoice.id).ledger_invoice_id
    assert api.put(path, as_=exec_user, json={"ledger_invoice_id": None, "status": "draft"}).status == 200
    assert api.put(f"{path}/line-items/{line.id}", as_=exec_user, json={"unit_price": 1}).status == 200
    relink = api.put(path, as_=exec_user, json={"ledger_invoice_id": ledger_id, "status": "sent"})
    assert relink.status == 400, relink
    assert relink.json["details"][0]["field"] == "ledger_invoice_id"
    assert "110.00" in relink.json["details"][0]["message"] and "1.10" in relink.json["details"][0]["message"]
    db.expire_all()
    stored = db.get(Invoice, invoice.id)
    assert (stored.ledger_invoice_id, stored.status) == (None, "draft")
    # the lines put back as they were: the totals match again and the link is kept
    assert api.put(f"{path}/line-items/{line.id}", as_=exec_user, json={"unit_price": 100}).status == 200
    relink = api.put(path, as_=exec_user, json={"ledger_invoice_id": ledger_id, "status": "sent"})
    assert relink.status == 200, relink
    assert relink.json["invoice"]["ledger_invoice_id"] == ledger_id


def test_a_hand_link_in_another_currency_is_refused(api, db, exec_user):
    """The ledger answers its invoice's currency (Xero's CurrencyCode, the sandbox's column): a ledger invoice in
    another currency than the invoice's is refused."""
    made = SandboxLedger(db=db).create_invoice({
        "invoice_number": "XERO-9", "contact_name": "Acme Pty", "date": "2026-03-01", "due_date": None,
        "currency": "USD", "reference": None,
        "lines": [{"description": "Work", "quantity": Decimal("1"), "unit_amount": Decimal("100"),
                   "account_code": None, "tax_type": None}]})["ledger_invoice_id"]
    invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, subtotal=Decimal("100"),
                           tax=Decimal("10"), total=Decimal("110"))
    make_invoice_item(db, invoice)
    linked = api.put(f"/api/invoices/{invoice.id}", as_=exec_user, json={"ledger_invoice_id": made})
    assert linked.status == 400, linked
    assert linked.json["details"][0]["field"] == "ledger_invoice_id" and "USD" in linked.json["details"][0]["message"]
    db.expire_all()
    assert db.get(Invoice, invoice.id).ledger_invoice_id is None
