"""The live ledger sends Xero's `Idempotency-Key` on a create given one (developer.xero.com "Idempotent requests":
a POST/PUT/PATCH header of at most 128 characters; a request repeated with the same key within 6 minutes answers
the first one's answer), on every attempt of the call: the one retry of a 429 (providers.http) carries the same key
as the first. With `responses` (no network); the bodies are the documented examples' shape (Xero-OpenAPI
xero_accounting.yaml PUT /Invoices, xero-payroll-au.yaml POST /LeaveApplications)."""
import time

import responses

from chalicelib.providers.ledger.base import IDEMPOTENCY_KEY_MAX, idempotency_key
from chalicelib.providers.ledger.live import ACCOUNTING, PAYROLL, XeroLedger
from chalicelib.providers.payroll.live import XeroPayroll

TENANT = "70784a63-d24b-46a9-a4db-0e70a274b056"
INVOICE = {"invoice_number": "INV-0042", "contact_name": "Acme Pty", "date": "2026-03-01", "due_date": "2026-03-31",
           "currency": "AUD", "reference": None,
           "lines": [{"description": "Design", "quantity": "2", "unit_amount": "500.00", "account_code": "200",
                      "tax_type": None}]}
MADE = {"Invoices": [{"InvoiceID": "243216c5-369e-4056-ac67-05388f86dc81", "Status": "DRAFT", "Type": "ACCREC"}]}
APPLIED = {"LeaveApplications": [{"LeaveApplicationID": "1d4ac1a0-ff7a-4b52-8c3b-6a0c3a0b1c2d",
                                  "EmployeeID": "cdfb8371-0b21-4b8a-8903-1024df6c391e"}]}
KEY = "wms-invoice-0b6c6a8e-2f0e-4a57-9d7e-3f1b7c2d9e10-20260301T000000000000Z-0123456789abcdef"


def ledger():
    return XeroLedger(auth=None, tokens={"access_token": "AT", "expires_at": time.time() + 1000}, tenant_id=TENANT)


def _keys():
    return [call.request.headers.get("Idempotency-Key") for call in responses.calls]


@responses.activate
def test_a_create_sends_its_key_and_the_429_retry_sends_the_same(waits):
    responses.put(f"{ACCOUNTING}/Invoices", status=429, headers={"Retry-After": "2"}, json={})
    responses.put(f"{ACCOUNTING}/Invoices", json=MADE)
    made = ledger().create_invoice(INVOICE, idempotency_key=KEY)
    assert made == {"ledger_invoice_id": "243216c5-369e-4056-ac67-05388f86dc81", "status": "DRAFT"}
    assert waits == [2.0] and _keys() == [KEY, KEY]


@responses.activate
def test_a_create_without_a_key_sends_none():
    responses.put(f"{ACCOUNTING}/Invoices", json=MADE)
    ledger().create_invoice(INVOICE)
    assert _keys() == [None]


@responses.activate
def test_a_leave_application_sends_its_key_and_the_429_retry_sends_the_same(waits):
    responses.post(f"{PAYROLL}/LeaveApplications", status=429, headers={"Retry-After": "1"}, json={})
    responses.post(f"{PAYROLL}/LeaveApplications", json=APPLIED)
    made = XeroPayroll(ledger()).create_leave_application(
        employee_id="cdfb8371-0b21-4b8a-8903-1024df6c391e", leave_type_id="742998cb-7584-4ecf-aa88-d694f59c50f9",
        title="Annual Leave", start_date="2026-12-01", end_date="2026-12-03", idempotency_key="wms-leave-1-abc")
    assert made == "1d4ac1a0-ff7a-4b52-8c3b-6a0c3a0b1c2d"
    assert waits == [1.0] and _keys() == ["wms-leave-1-abc", "wms-leave-1-abc"]


def test_keys_are_the_same_for_the_same_request_and_within_xeros_limit():
    body = {"lines": [{"quantity": 2}], "contact_name": "Acme"}
    key = idempotency_key("wms-invoice", "id-1", "v1", body=body)
    assert key == idempotency_key("wms-invoice", "id-1", "v1", body={"contact_name": "Acme", "lines": [{"quantity": 2}]})
    assert key != idempotency_key("wms-invoice", "id-1", "v1", body={**body, "contact_name": "Acme Ltd"})
    assert key != idempotency_key("wms-invoice", "id-1", "v2", body=body)
    long = idempotency_key("wms-invoice", "x" * 300, body=body)
    assert len(long) == IDEMPOTENCY_KEY_MAX and long.startswith("wms-invoice-xxx")
    assert long != idempotency_key("wms-invoice", "x" * 299 + "y", body=body)


LEDGER_ID = "243216c5-369e-4056-ac67-05388f86dc81"


def refreshing_ledger():
    """A ledger whose access token Xero refuses once (401): the adapter refreshes it and retries the call."""
    from chalicelib.providers.ledger.live import TOKEN_URL, XeroAuth

    responses.post(TOKEN_URL, json={"access_token": "AT2", "refresh_token": "RT2", "expires_in": 1800,
                                    "token_type": "Bearer"})
    auth = XeroAuth(client_id="CLIENT", client_secret="SECRET", redirect_uri="https://wms.example/cb")
    return XeroLedger(auth=auth, tokens={"access_token": "AT", "refresh_token": "RT",
                                         "expires_at": time.time() + 1000}, tenant_id=TENANT)


def _api_keys(path):
    return [call.request.headers.get("Idempotency-Key") for call in responses.calls
            if call.request.url.startswith(f"{ACCOUNTING}{path}")]


@responses.activate
def test_a_status_change_sends_a_key_the_same_on_the_429_and_the_refresh_retries(waits):
    """updateInvoice (POST /Invoices/{InvoiceID}) lists the Idempotency-Key header (xero_accounting.yaml,
    components.parameters.idempotencyKey): a status change sends one, and each retry of the call (after a 429, after
    the token refresh a 401 asks for) sends the same; another status change sends another."""
    url = f"{ACCOUNTING}/Invoices/{LEDGER_ID}"
    responses.post(url, status=429, headers={"Retry-After": "1"}, json={})
    responses.post(url, status=401, json={"Title": "Unauthorized", "Status": 401, "Detail": "TokenExpired"})
    responses.post(url, json={"Invoices": [{"InvoiceID": LEDGER_ID, "Status": "AUTHORISED"}]})
    ledger = refreshing_ledger()
    assert ledger.set_status(LEDGER_ID, "AUTHORISED") == {"status": "AUTHORISED"}
    keys = _api_keys(f"/Invoices/{LEDGER_ID}")
    assert len(keys) == 3 and keys[0] and len(set(keys)) == 1 and len(keys[0]) <= IDEMPOTENCY_KEY_MAX
    assert waits == [1.0]
    responses.post(url, json={"Invoices": [{"InvoiceID": LEDGER_ID, "Status": "VOIDED"}]})
    ledger.set_status(LEDGER_ID, "VOIDED")
    assert _api_keys(f"/Invoices/{LEDGER_ID}")[-1] not in keys


@responses.activate
def test_an_email_sends_a_key_the_same_on_its_retries_and_a_new_one_per_send(waits):
    """emailInvoice (POST /Invoices/{InvoiceID}/Email, 204) lists the Idempotency-Key header: the adapter's retries
    of one send carry one key; a second send is another action and another key; a caller's key is sent as given."""
    url = f"{ACCOUNTING}/Invoices/{LEDGER_ID}/Email"
    responses.post(url, status=429, headers={"Retry-After": "2"}, json={})
    responses.post(url, status=401, json={"Title": "Unauthorized", "Status": 401, "Detail": "TokenExpired"})
    responses.post(url, status=204)
    ledger = refreshing_ledger()
    ledger.email_invoice(LEDGER_ID)
    first = _api_keys(f"/Invoices/{LEDGER_ID}/Email")
    assert len(first) == 3 and first[0] and len(set(first)) == 1 and waits == [2.0]
    ledger.email_invoice(LEDGER_ID)
    second = _api_keys(f"/Invoices/{LEDGER_ID}/Email")[3:]
    assert len(second) == 1 and second[0] != first[0]
    ledger.email_invoice(LEDGER_ID, idempotency_key="wms-invoice-send-1")
    assert _api_keys(f"/Invoices/{LEDGER_ID}/Email")[-1] == "wms-invoice-send-1"
