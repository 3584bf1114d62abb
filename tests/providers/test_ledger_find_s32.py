"""The live ledger's look by number (session 32, `XeroLedger.find_invoices`; docs/decisions/invoices.md "A push retried
after the ledger forgot its key"): `GET /Invoices?InvoiceNumbers=...&Statuses=...&createdByMyApp=true&page=1`
(xero_accounting.yaml, getInvoices' parameters), answering only the sales invoices that carry the number itself, in
a status a push may take. With `responses` (no network); the answers follow getInvoices' documented example."""
import time
from decimal import Decimal
from urllib.parse import parse_qs, urlparse

import pytest
import requests
import responses

from chalicelib.core.errors import BadGateway, GatewayTimeout
from chalicelib.providers.ledger.base import LedgerRefused
from chalicelib.providers.ledger.live import ACCOUNTING, XeroLedger
from tests.providers.test_ledger_idempotency import INVOICE

TENANT = "70784a63-d24b-46a9-a4db-0e70a274b056"


def ledger():
    return XeroLedger(auth=None, tokens={"access_token": "AT", "expires_at": time.time() + 1000}, tenant_id=TENANT)


def invoice(**changes):
    """One invoice of getInvoices' example answer (xero_accounting.yaml), as a push makes it."""
    return {"Type": "ACCREC", "InvoiceID": "d4956132-ed94-4dd7-9eaa-aa22dfdf06f2", "InvoiceNumber": "INV-0042",
            "Reference": "", "Payments": [], "CreditNotes": [], "Prepayments": [], "Overpayments": [],
            "AmountDue": 1100.00, "AmountPaid": 0.00, "AmountCredited": 0.00, "SentToContact": False,
            "CurrencyRate": 1.000000, "HasErrors": False, "IsDiscounted": False, "HasAttachments": False,
            "Contact": {"ContactID": "a3675fc4-f8dd-4f03-ba5b-f1870566bcd7", "Name": "Acme Pty"},
            "DateString": "2026-03-01T00:00:00", "Date": "/Date(1772323200000+0000)/", "Status": "DRAFT",
            "LineAmountTypes": "Exclusive", "LineItems": [], "SubTotal": 1000.00, "TotalTax": 100.00,
            "Total": 1100.00, "UpdatedDateUTC": "/Date(1772323200000+0000)/", "CurrencyCode": "AUD", **changes}


def answer(*invoices):
    return {"Id": "900c500b-e83c-4ce2-902a-b8ba04751748", "Status": "OK", "ProviderName": "WMS",
            "DateTimeUTC": "/Date(1772323200000)/",
            "pagination": {"page": 1, "pageSize": 100, "pageCount": 1, "itemCount": len(invoices)},
            "Invoices": list(invoices)}


@responses.activate
def test_the_look_asks_by_number_status_and_app_and_answers_the_state():
    responses.get(f"{ACCOUNTING}/Invoices", json=answer(invoice()))
    [found] = ledger().find_invoices("INV-0042")
    assert found["ledger_invoice_id"] == "d4956132-ed94-4dd7-9eaa-aa22dfdf06f2" and found["status"] == "DRAFT"
    assert found["invoice_number"] == "INV-0042" and found["contact_name"] == "Acme Pty"
    assert found["currency"] == "AUD" and found["total"] == Decimal("1100.0")
    [call] = responses.calls
    assert parse_qs(urlparse(call.request.url).query) == {
        "InvoiceNumbers": ["INV-0042"], "Statuses": ["DRAFT,SUBMITTED,AUTHORISED,PAID"], "createdByMyApp": ["true"],
        "page": ["1"]}
    assert call.request.headers["Xero-tenant-id"] == TENANT and "Idempotency-Key" not in call.request.headers


@responses.activate
def test_only_sales_invoices_with_the_number_itself_in_a_status_asked_are_answered():
    responses.get(f"{ACCOUNTING}/Invoices", json=answer(
        invoice(Type="ACCPAY", InvoiceID="046d8a6d-1ae1-4b4d-9340-5601bdf41b87"),  # a supplier's bill
        invoice(InvoiceNumber="inv-0042", InvoiceID="1b1e5ad6-0b2a-4a4b-8d2c-2c1a8e8f3a10"),  # another number
        invoice(Status="VOIDED", InvoiceID="7f0c3f8e-7a8d-4c35-9c2e-3d4c5b6a7980"),  # were the filter ignored
        invoice(Status="SUBMITTED")))
    assert [(found["ledger_invoice_id"], found["status"]) for found in ledger().find_invoices("INV-0042")] == [
        ("d4956132-ed94-4dd7-9eaa-aa22dfdf06f2", "SUBMITTED")]


@responses.activate
def test_no_invoice_with_the_number_is_an_empty_answer():
    responses.get(f"{ACCOUNTING}/Invoices", json=answer())
    assert ledger().find_invoices("INV-0042") == []


@responses.activate
def test_a_refused_or_unreadable_look_is_the_ledgers_502():
    responses.get(f"{ACCOUNTING}/Invoices", status=400, json={
        "ErrorNumber": 10, "Type": "ValidationException", "Message": "A validation exception occurred"})
    with pytest.raises(BadGateway, match="refused the request"):
        ledger().find_invoices("INV-0042")
    responses.replace(responses.GET, f"{ACCOUNTING}/Invoices", json={"Invoices": "INV-0042"})
    with pytest.raises(BadGateway, match="not a list of objects"):
        ledger().find_invoices("INV-0042")


@responses.activate
def test_a_4xx_is_the_ledgers_refusal_and_a_5xx_or_a_timeout_is_not():
    """A push that meets Xero's refusal (it made nothing) records no lost answer; one that meets a 5xx or a timeout
    (Xero may have made the invoice) does (base.LedgerRefused)."""
    responses.put(f"{ACCOUNTING}/Invoices", status=400, json={
        "ErrorNumber": 10, "Type": "ValidationException", "Message": "A validation exception occurred",
        "Elements": [{"ValidationErrors": [{"Message": "Invoice # must be unique."}]}]})
    with pytest.raises(LedgerRefused, match="Invoice # must be unique."):
        ledger().create_invoice(INVOICE, idempotency_key="k")
    responses.replace(responses.PUT, f"{ACCOUNTING}/Invoices", status=500, json={"Message": "An error occurred"})
    with pytest.raises(BadGateway) as failed:
        ledger().create_invoice(INVOICE, idempotency_key="k")
    assert not isinstance(failed.value, LedgerRefused)
    responses.replace(responses.PUT, f"{ACCOUNTING}/Invoices", body=requests.Timeout("read timed out"))
    with pytest.raises(GatewayTimeout):
        ledger().create_invoice(INVOICE, idempotency_key="k")
