"""Money received through the live ledger (docs/decisions/invoices.md, "Money received"): a sync through the invoices
area, with the live Xero adapter answered by `responses`. Xero's Invoice (github.com/XeroAPI/Xero-OpenAPI
xero_accounting.yaml, components.schemas.Invoice): `AmountPaid` "Sum of payments received for invoice",
`AmountCredited` "Sum of all credit notes, over-payments and pre-payments applied to invoice", and the invoice's
`Prepayments`, `Overpayments` and `CreditNotes`, each item of its own schema with `AppliedAmount` "The amount of
applied to an invoice". A client's deposit (a prepayment) applied to the invoice is money received: it is counted in
`amount_paid` (and so in the project's `collected`) and named by the paid notice; a credit note applied is not."""
from decimal import Decimal
from types import SimpleNamespace

import pytest
import responses
from sqlalchemy import select

from chalicelib.areas.invoices.models import Invoice
from chalicelib.core.notify import Notification
from chalicelib.providers.ledger.live import ACCOUNTING
from tests.areas.budgets.factories import make_budget
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice
from tests.areas.projects.factories import make_project
from tests.factories import make_user

TENANT = "70784a63-d24b-46a9-a4db-0e70a274b056"
LEDGER_ID = "4f7a1c64-5b5e-4a8b-9a57-2b9a3c1e0d11"


@pytest.fixture
def team(db, set_env):
    """A project of Acme (owner told of a paid invoice), its budget, an executive who syncs, and an invoice of
    1,100.00 approved in the live ledger."""
    set_env(LEDGER_MODE="live", LEDGER_ACCESS_TOKEN="AT", LEDGER_TENANT_ID=TENANT)
    owner = make_user(db, name="Olga Owner")
    boss = make_user(db, access_level="executive", name="Bea Boss")
    company = make_company(db, name="Acme Pty")
    project = make_project(db, name="Site", owner_id=owner.id, company_id=company.id)
    budget = make_budget(db, resource_id=project.id, company_id=company.id, budget_type="fixed_price",
                         total_amount=Decimal("1000"))
    invoice = make_invoice(db, company_id=company.id, budget_id=budget.id, created_by=boss.id, status="approved",
                           total=Decimal("1100"), amount_due=Decimal("1100"), ledger_invoice_id=LEDGER_ID,
                           ledger_status="AUTHORISED")
    return SimpleNamespace(owner=owner, boss=boss, project=project, invoice=invoice)


def _xero_invoice(**fields) -> dict:
    """GET /Invoices?IDs= answer of one invoice (the getInvoices example's envelope and fields)."""
    invoice = {"Type": "ACCREC", "InvoiceID": LEDGER_ID, "InvoiceNumber": "INV-0042", "Reference": "",
               "Contact": {"ContactID": "a3675fc4-f8dd-4f03-ba5b-f1870566bcd7", "Name": "Acme Pty"},
               "Date": "/Date(1772323200000+0000)/", "Status": "PAID", "LineAmountTypes": "Exclusive",
               "LineItems": [], "SubTotal": 1000.00, "TotalTax": 100.00, "Total": 1100.00, "CurrencyCode": "AUD",
               "Payments": [], "CreditNotes": [], "Prepayments": [], "Overpayments": [], "AmountDue": 0.00,
               "AmountPaid": 0.00, "AmountCredited": 0.00, **fields}
    return {"Id": "e0b5b2a2-3f0e-4c4e-9b1e-7c2f0e1d9a10", "Status": "OK", "ProviderName": "WMS",
            "DateTimeUTC": "/Date(1772409600000)/", "Invoices": [invoice]}


def _sync(api, team, answer: dict) -> dict:
    with responses.RequestsMock() as mock:
        mock.get(f"{ACCOUNTING}/Invoices", json=answer)
        synced = api.post(f"/api/invoices/{team.invoice.id}/sync-ledger", as_=team.boss)
    assert synced.status == 200, synced.json
    return synced.json


def _paid_notice(db, user) -> str:
    db.expire_all()
    [body] = db.scalars(select(Notification.body).where(Notification.user_id == user.id,
                                                        Notification.type == "invoice_paid")).all()
    return body


def test_a_deposit_applied_to_the_invoice_is_money_received(api, db, team):
    """The client's deposit (a prepayment of 1,100.00) settles the invoice: Xero answers it PAID with AmountPaid 0
    and AmountCredited 1,100.00. amount_paid is 1,100.00 (it was 0), the project's collected counts it, and the paid
    notice says 1,100.00 received (it said 0.00)."""
    synced = _sync(api, team, _xero_invoice(AmountCredited=1100.00, Prepayments=[{
        "PrepaymentID": "ce0cddef-cf5a-4e59-b638-f225679115a7", "ID": "ce0cddef-cf5a-4e59-b638-f225679115a7",
        "Date": "/Date(1772323200000+0000)/", "AppliedAmount": 1100.00, "Total": 1100.00}]))
    assert synced["invoice"]["amount_paid"] == 1100 and synced["invoice"]["amount_due"] == 0
    assert synced["payment_status"] == "paid" and synced["payments"] == []  # the records are Xero's Payments only
    db.expire_all()
    assert db.get(Invoice, team.invoice.id).amount_paid == Decimal("1100.00")
    assert _paid_notice(db, team.owner) == "Paid in the ledger: AUD 1,100.00 received."
    profitability = api.get(f"/api/projects/{team.project.id}/profitability", as_=team.boss)
    assert profitability.status == 200, profitability.json
    assert Decimal(str(profitability.json["collected"])) == Decimal("1100")


def test_payments_and_overpayments_count_a_credit_note_does_not(api, db, team):
    """500.00 paid, 100.00 of an earlier overpayment and 500.00 of a credit note applied: 600.00 received; the
    credit note lowers what is owed, no money received, and the notice names it apart."""
    synced = _sync(api, team, _xero_invoice(
        AmountPaid=500.00, AmountCredited=600.00,
        Payments=[{"PaymentID": "99ea7f6b-c513-4066-bc27-b7c65dcd76c2", "Date": "/Date(1772323200000+0000)/",
                   "Amount": 500.00, "CurrencyRate": 1.0, "HasAccount": False, "HasValidationErrors": False}],
        Overpayments=[{"OverpaymentID": "ed7f6041-c358-4d1c-9e4f-3b5d6a2f8c91",
                       "ID": "ed7f6041-c358-4d1c-9e4f-3b5d6a2f8c91", "AppliedAmount": 100.00, "Total": 150.00}],
        CreditNotes=[{"CreditNoteID": "7be2c6c3-9f37-4a7e-8e4b-5cd41f7f2d0e", "CreditNoteNumber": "CN-0003",
                      "ID": "7be2c6c3-9f37-4a7e-8e4b-5cd41f7f2d0e", "AppliedAmount": 500.00, "Total": 500.00}]))
    assert synced["invoice"]["amount_paid"] == 600 and synced["payment_status"] == "paid"
    assert [payment["amount"] for payment in synced["payments"]] == [500]
    assert _paid_notice(db, team.owner) == "Paid in the ledger: AUD 600.00 received, AUD 500.00 credited."
