"""A hand link's ledger contact written in another Unicode form (session 32, "the same thing written two ways" audit).

The ledger's contact must be the invoice's company, compared ignoring case and white space
(docs/decisions/invoices.md, "Linking by hand"). "Café Co" is written two ways in Unicode: one character é (NFC,
as most keyboards type it) or e and a combining accent (NFD, as text copied from some systems and macOS file names
carry it). Both show the same name, and the comparison told them apart: the client's own ledger invoice was refused
as "another contact's invoice". Names are now compared in one Unicode form (NFKC) as well."""
from __future__ import annotations

from decimal import Decimal

from chalicelib.providers.ledger.sandbox import SandboxLedger
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice

TOTALS = {"subtotal": Decimal("100"), "tax": Decimal("10"), "total": Decimal("110")}


def _made_in_the_ledger(db, contact: str) -> str:
    return SandboxLedger(db=db).create_invoice({
        "invoice_number": "XERO-7", "contact_name": contact, "date": "2026-03-01", "due_date": None,
        "currency": "AUD", "reference": None,
        "lines": [{"description": "Work", "quantity": Decimal("1"), "unit_amount": Decimal("100"),
                   "account_code": None, "tax_type": None}]})["ledger_invoice_id"]


def test_the_contact_in_another_unicode_form_is_the_company(api, db, exec_user):
    own = _made_in_the_ledger(db, "Cafe\u0301 Co")  # NFD: e + combining acute
    ours = make_invoice(db, company_id=make_company(db, name="Caf\u00e9 Co").id, **TOTALS)  # NFC: é
    answer = api.put(f"/api/invoices/{ours.id}", as_=exec_user, json={"ledger_invoice_id": own})
    assert answer.status == 200, answer.json
    assert answer.json["invoice"]["ledger_invoice_id"] == own


def test_another_name_is_still_refused(api, db, exec_user):
    theirs = _made_in_the_ledger(db, "Cafe Co")  # no accent: another name
    ours = make_invoice(db, company_id=make_company(db, name="Caf\u00e9 Co").id, **TOTALS)
    answer = api.put(f"/api/invoices/{ours.id}", as_=exec_user, json={"ledger_invoice_id": theirs})
    assert answer.status == 400 and answer.json["details"][0]["field"] == "ledger_invoice_id", answer.json
