"""A ledger invoice linked by hand (`PUT /api/invoices/:id` with `ledger_invoice_id`), and what an invoice in the
ledger may still change (docs/decisions/invoices.md, "Linking by hand and what the ledger holds").

A hand link is checked against the ledger before it is written: the ledger must hold the invoice, no other invoice
here may be linked to it, and its contact must be the invoice's company (the name the push sends as the contact).
The provider's `get_invoices` answers the contact as `contact_name` (Xero's `Contact.Name`, the sandbox's stored
contact); where a ledger does not answer it, the link cannot be checked and is refused.
"""
from __future__ import annotations

from decimal import Decimal

import pytest

from chalicelib.areas.invoices.models import Invoice
from chalicelib.providers.ledger.sandbox import SandboxLedger
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item


@pytest.fixture
def ledger_without_contact(monkeypatch):
    """A ledger whose invoice answer does not name the contact."""
    answer = SandboxLedger.get_invoices
    monkeypatch.setattr(SandboxLedger, "get_invoices", lambda self, ids: [
        {**state, "contact_name": None} for state in answer(self, ids)])


def _made_in_the_ledger(db, contact: str) -> str:
    """A draft made in the ledger directly (not pushed from here) for `contact`: its ledger id."""
    return SandboxLedger(db=db).create_invoice({
        "invoice_number": "XERO-1", "contact_name": contact, "date": "2026-03-01", "due_date": None,
        "currency": "AUD", "reference": None,
        "lines": [{"description": "Work", "quantity": Decimal("1"), "unit_amount": Decimal("100"),
                   "account_code": None, "tax_type": None}]})["ledger_invoice_id"]


# The totals of the invoice `_made_in_the_ledger` makes (one line of 100, GST 10): a hand link must bill what the
# ledger invoice bills (session 22; tests/areas/invoices/test_issued_lines.py).
LEDGER_TOTALS = {"subtotal": Decimal("100"), "tax": Decimal("10"), "total": Decimal("110")}


def _link(api, user, invoice, ledger_id, **more):
    return api.put(f"/api/invoices/{invoice.id}", as_=user, json={"ledger_invoice_id": ledger_id, **more})


def test_a_hand_link_to_another_clients_ledger_invoice_is_refused(api, db, exec_user):
    theirs = _made_in_the_ledger(db, "Other Client Ltd")
    ours = make_invoice(db, company_id=make_company(db, name="Acme Pty").id)
    answer = _link(api, exec_user, ours, theirs)
    assert answer.status == 400, answer
    assert answer.json["details"][0]["field"] == "ledger_invoice_id"
    db.expire_all()
    assert db.get(Invoice, ours.id).ledger_invoice_id is None
    # the PDF, the moves and the syncs of the other client's invoice stay out of reach
    assert api.get(f"/api/invoices/{ours.id}/pdf", as_=exec_user).status == 409


def test_a_hand_link_to_the_clients_own_ledger_invoice_is_kept(api, db, exec_user):
    own = _made_in_the_ledger(db, "Acme Pty")
    ours = make_invoice(db, company_id=make_company(db, name="acme pty ").id,  # the ledger's names ignore case
                        **LEDGER_TOTALS)
    answer = _link(api, exec_user, ours, own)
    assert answer.status == 200, answer
    assert answer.json["invoice"]["ledger_invoice_id"] == own
    synced = api.post(f"/api/invoices/{ours.id}/sync-ledger", as_=exec_user)
    assert synced.status == 200 and synced.json["ledger_status"] == "DRAFT"


def test_a_hand_link_with_a_company_given_is_checked_against_that_company(api, db, exec_user):
    own = _made_in_the_ledger(db, "Beta Ltd")
    ours = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, **LEDGER_TOTALS)
    beta = make_company(db, name="Beta Ltd")
    assert _link(api, exec_user, ours, own).status == 400
    answer = _link(api, exec_user, ours, own, company_id=beta.id)
    assert answer.status == 200, answer
    assert answer.json["invoice"]["company_id"] == beta.id


def test_a_hand_link_needs_a_company_and_an_id_the_ledger_holds(api, db, exec_user):
    loose = make_invoice(db)
    answer = _link(api, exec_user, loose, _made_in_the_ledger(db, "Acme Pty"))
    assert answer.status == 400 and answer.json["details"][0]["field"] == "company_id"
    ours = make_invoice(db, company_id=make_company(db, name="Acme Pty").id)
    answer = _link(api, exec_user, ours, "made-up")
    assert answer.status == 400 and answer.json["details"][0]["field"] == "ledger_invoice_id"


def test_a_ledger_invoice_linked_to_another_invoice_is_refused(api, db, exec_user):
    acme = make_company(db, name="Acme Pty")
    first = make_invoice(db, company_id=acme.id)
    make_invoice_item(db, first)
    pushed = api.post(f"/api/invoices/{first.id}/push-to-ledger", as_=exec_user).json["ledger_invoice_id"]
    second = make_invoice(db, company_id=acme.id)
    answer = _link(api, exec_user, second, pushed)
    assert answer.status == 409, answer
    db.expire_all()
    assert db.get(Invoice, second.id).ledger_invoice_id is None


def test_without_the_ledgers_contact_a_hand_link_is_refused(api, db, exec_user, ledger_without_contact):
    """A ledger that does not answer the contact: the link cannot be checked, so it is not made."""
    own = _made_in_the_ledger(db, "Acme Pty")
    ours = make_invoice(db, company_id=make_company(db, name="Acme Pty").id)
    answer = _link(api, exec_user, ours, own)
    assert answer.status == 400 and answer.json["details"][0]["field"] == "ledger_invoice_id"


def test_unlinking_by_hand_is_kept(api, db, exec_user):
    ours = make_invoice(db, company_id=make_company(db, name="Acme Pty").id)
    make_invoice_item(db, ours)
    api.post(f"/api/invoices/{ours.id}/push-to-ledger", as_=exec_user)
    answer = _link(api, exec_user, ours, None)
    assert answer.status == 200 and answer.json["invoice"]["ledger_invoice_id"] is None


def test_an_invoice_in_the_ledger_keeps_its_lines_company_and_currency(api, db, exec_user):
    ours = make_invoice(db, company_id=make_company(db, name="Acme Pty").id)
    line = make_invoice_item(db, ours)
    other = make_invoice_item(db, ours, position=1)
    path = f"/api/invoices/{ours.id}"
    assert api.post(f"{path}/push-to-ledger", as_=exec_user).status == 200
    total = db.get(Invoice, ours.id).total
    assert api.post(f"{path}/line-items", as_=exec_user, json={"description": "More", "unit_price": 5}).status == 409
    assert api.put(f"{path}/line-items/{line.id}", as_=exec_user, json={"unit_price": 1}).status == 409
    assert api.delete(f"{path}/line-items/{line.id}", as_=exec_user).status == 409
    assert api.put(f"{path}/line-items/reorder", as_=exec_user, json={"item_ids": [other.id, line.id]}).status == 409
    assert api.put(path, as_=exec_user, json={"company_id": make_company(db, name="Beta Ltd").id}).status == 409
    assert api.put(path, as_=exec_user, json={"currency": "USD"}).status == 409
    assert api.put(path, as_=exec_user, json={"notes": "paid by EFT", "due_date": "2026-05-01"}).status == 200
    db.expire_all()
    stored = db.get(Invoice, ours.id)
    assert (stored.total, stored.currency) == (total, "AUD")
    # deleted in the ledger (a draft there): a local draft again, its lines editable
    assert api.post(f"{path}/ledger-delete", as_=exec_user).status == 200
    assert api.post(f"{path}/line-items", as_=exec_user, json={"description": "More", "unit_price": 5}).status == 201
