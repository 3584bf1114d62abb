"""Session 30, a Xero invoice outside its documented shape (github.com/XeroAPI/Xero-OpenAPI xero_accounting.yaml,
components.schemas.Invoice: `InvoiceID` a GUID string, `Status` an enum string, `Contact` an object, amounts numbers,
`Payments`, `Prepayments`, `Overpayments` and `CreditNotes` arrays of objects, a payment's `Date` a /Date(ms)/ and
its `Reference` a string) is the ledger's 502 on the single sync, never a 500; the batch sync (the route and the
hourly job) reports that invoice alone and syncs the others, as it reports an invoice the ledger refuses. Before,
the live adapter's `_state` raised KeyError, TypeError, AttributeError or InvalidOperation (or the sync's write
failed on the value): a 500 on the routes, and the hourly job ended with nothing recorded."""
from decimal import Decimal

import pytest
import responses
from sqlalchemy import select

from chalicelib.areas.invoices import jobs
from chalicelib.areas.invoices.models import Invoice, LedgerSyncRun
from chalicelib.core.errors import BadGateway
from chalicelib.providers.ledger.live import ACCOUNTING, xero_date
from tests.areas.invoices.factories import make_invoice, ready_invoice
from tests.areas.invoices.test_ledger_prepayments import LEDGER_ID, _xero_invoice, team  # noqa: F401
from tests.providers.test_ledger_wire import ledger

PAYMENT = {"PaymentID": "99ea7f6b-c513-4066-bc27-b7c65dcd76c2", "Date": "/Date(1772323200000+0000)/",
           "Amount": 500.00, "CurrencyRate": 1.0}
OTHER_ID = "5d1c3b2a-7e6f-4a9b-8c0d-1e2f3a4b5c6d"


def _without_id() -> dict:
    answer = _xero_invoice()
    del answer["Invoices"][0]["InvoiceID"]
    return answer


ODD = [
    pytest.param(_without_id(), "InvoiceID", id="no-InvoiceID"),
    pytest.param(_xero_invoice(InvoiceID=["x"]), "InvoiceID", id="InvoiceID-list"),
    pytest.param(_xero_invoice(Payments=["99ea7f6b"]), "Payments", id="payment-no-object"),
    pytest.param(_xero_invoice(Payments="none"), "Payments", id="payments-string"),
    pytest.param(_xero_invoice(CreditNotes=[7]), "CreditNotes", id="credit-note-no-object"),
    pytest.param(_xero_invoice(Prepayments={"AppliedAmount": 1}), "Prepayments", id="prepayments-object"),
    pytest.param(_xero_invoice(Overpayments=[{"AppliedAmount": "lots"}]), "Overpayments AppliedAmount",
                 id="overpayment-amount-word"),
    pytest.param(_xero_invoice(Total="abc"), "Total", id="total-word"),
    pytest.param(_xero_invoice(Total={"value": 1100}), "Total", id="total-object"),
    pytest.param(_xero_invoice(AmountDue=True), "AmountDue", id="due-boolean"),
    pytest.param(_xero_invoice(AmountPaid=1e15), "AmountPaid", id="paid-past-the-column"),
    pytest.param(_xero_invoice(AmountPaid="NaN"), "AmountPaid", id="paid-nan"),
    pytest.param(_xero_invoice(Contact="Acme Pty"), "Contact", id="contact-string"),
    pytest.param(_xero_invoice(Status=["PAID"]), "Status", id="status-list"),
    pytest.param(_xero_invoice(Status="AUTHORISED", CurrencyCode=36), "CurrencyCode", id="currency-number"),
    pytest.param(_xero_invoice(AmountPaid=500.0, Payments=[{**PAYMENT, "Date": "soon"}]), "payment Date",
                 id="payment-date-word"),
    pytest.param(_xero_invoice(AmountPaid=500.0, Payments=[{**PAYMENT, "Date": "/Date(99999999999999999+0000)/"}]),
                 "payment Date", id="payment-date-past-the-calendar"),
    pytest.param(_xero_invoice(AmountPaid=500.0, Payments=[{**PAYMENT, "Reference": 12345}]), "payment Reference",
                 id="payment-reference-number"),
    pytest.param(_xero_invoice(AmountPaid=500.0, Payments=[{**PAYMENT, "PaymentID": {"id": 1}}]), "PaymentID",
                 id="payment-id-object"),
]


@pytest.mark.parametrize("answer, field", ODD)
def test_the_single_sync_of_an_invoice_xero_answers_unreadably_is_a_502(api, db, team, answer, field):  # noqa: F811
    with responses.RequestsMock() as mock:
        mock.get(f"{ACCOUNTING}/Invoices", json=answer)
        synced = api.post(f"/api/invoices/{team.invoice.id}/sync-ledger", as_=team.boss)
    assert synced.status == 502, synced.json
    assert synced.json["error"] == f"The accounting ledger answered an invoice whose {field} cannot be read"
    db.expire_all()
    assert db.get(Invoice, team.invoice.id).amount_paid == Decimal("0")  # nothing written


def _two_invoices(db, team):  # noqa: F811
    """The team's invoice and another linked one, both last synced long ago (the batch sync reads them)."""
    other = make_invoice(db, company_id=team.invoice.company_id, status="approved", total=Decimal("200"),
                         amount_due=Decimal("200"), ledger_invoice_id=OTHER_ID, ledger_status="AUTHORISED")
    return other


def _answer_by_ids(odd: dict):
    """GET /Invoices?IDs=...: the odd invoice for a request holding LEDGER_ID, the other one paid."""
    paid = _xero_invoice(InvoiceID=OTHER_ID, Total=200.0, AmountPaid=200.0)["Invoices"][0]

    def reply(request):
        import json
        from urllib.parse import parse_qs, urlparse

        ids = parse_qs(urlparse(request.url).query)["IDs"][0].split(",")
        invoices = ([paid] if OTHER_ID in ids else []) + (odd["Invoices"] if LEDGER_ID in ids else [])
        return 200, {}, json.dumps({"Status": "OK", "Invoices": invoices})
    return reply


@pytest.mark.parametrize("answer, field", [ODD[0], ODD[2], ODD[7], ODD[15]])
def test_the_batch_sync_reports_the_unreadable_invoice_and_syncs_the_others(api, db, team, answer, field):  # noqa: F811
    other = _two_invoices(db, team)
    with responses.RequestsMock() as mock:
        mock.add_callback(responses.GET, f"{ACCOUNTING}/Invoices", callback=_answer_by_ids(answer))
        synced = api.post("/api/invoices/sync-ledger", as_=team.boss)
    assert synced.status == 200, synced.json
    assert synced.json["errors"] == [{
        "invoice_id": team.invoice.id, "invoice_number": team.invoice.invoice_number,
        "error": f"The accounting ledger answered an invoice whose {field} cannot be read"}]
    db.expire_all()
    assert db.get(Invoice, other.id).amount_paid == Decimal("200.00")


def test_the_hourly_job_records_the_unreadable_invoice_and_goes_on(db, team):  # noqa: F811
    other = _two_invoices(db, team)
    with responses.RequestsMock() as mock:
        mock.add_callback(responses.GET, f"{ACCOUNTING}/Invoices", callback=_answer_by_ids(_without_id()))
        result = jobs.ledger_invoice_sync()
    assert [error["invoice_id"] for error in result["errors"]] == [team.invoice.id], result
    db.expire_all()
    assert db.get(Invoice, other.id).payment_status == "paid"
    run = db.scalars(select(LedgerSyncRun).order_by(LedgerSyncRun.started_at.desc())).first()
    assert run.trigger == "schedule" and run.errors[0]["invoice_id"] == team.invoice.id


@pytest.mark.parametrize("made", [{"Status": "DRAFT"}, {"InvoiceID": 7, "Status": "DRAFT"}, "INV-1"])
def test_a_push_xero_answers_without_an_invoice_id_is_a_502(api, db, team, made):  # noqa: F811
    """PUT /Invoices answers `{"Invoices": [Invoice]}`: `made["InvoiceID"]` raised KeyError (or TypeError on a
    string), a 500 on the push."""
    invoice = ready_invoice(db)
    with responses.RequestsMock() as mock:
        mock.put(f"{ACCOUNTING}/Invoices", json={"Status": "OK", "Invoices": [made]})
        pushed = api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=team.boss)
    assert pushed.status == 502, pushed.json
    db.expire_all()
    assert db.get(Invoice, invoice.id).ledger_invoice_id is None


@responses.activate
def test_a_status_change_answered_with_no_invoice_object_is_a_502():
    responses.post(f"{ACCOUNTING}/Invoices/{LEDGER_ID}", json={"Invoices": ["AUTHORISED"]})
    with pytest.raises(BadGateway, match="unreadable invoice"):
        ledger().set_status(LEDGER_ID, "AUTHORISED")


def test_a_date_is_read_as_before_and_an_unreadable_one_is_none():
    assert xero_date("/Date(1573603200000+0000)/") == "2019-11-13"
    assert xero_date("2019-11-13T00:00:00") == "2019-11-13" and xero_date(None) is None
    assert [xero_date(v) for v in ("soon", "/Date(99999999999999999)/", 1573603200000, "2019-13-45")] == [None] * 4
