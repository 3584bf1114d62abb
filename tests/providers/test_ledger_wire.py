"""Wire format of the live ledger (Xero Accounting API, Payroll AU, identity.xero.com) against Xero's own documents,
with `responses` (no network). Each mocked answer follows the documented example it cites."""
import time
from decimal import Decimal
from urllib.parse import parse_qs, urlparse

import responses

from chalicelib.providers.ledger.live import ACCOUNTING, PAYROLL, XeroAuth, XeroLedger

TENANT = "70784a63-d24b-46a9-a4db-0e70a274b056"

# The scopes Xero documents: https://developer.xero.com/documentation/oauth2/scopes, the granular ones
# (apps created on or after 2 March 2026): https://developer.xero.com/faq/granular-scopes, and the `security`
# of each operation in https://github.com/XeroAPI/Xero-OpenAPI (xero_accounting.yaml, xero-payroll-au.yaml).
DOCUMENTED_SCOPES = {
    "openid", "profile", "email", "offline_access",
    "accounting.invoices", "accounting.invoices.read", "accounting.payments", "accounting.payments.read",
    "accounting.contacts", "accounting.contacts.read", "accounting.settings", "accounting.settings.read",
    "payroll.employees", "payroll.employees.read", "payroll.settings", "payroll.settings.read",
    "payroll.payruns", "payroll.payruns.read", "payroll.payslip", "payroll.payslip.read",
    "payroll.timesheets", "payroll.timesheets.read",
}


def ledger():
    auth = XeroAuth(client_id="CLIENT", client_secret="SECRET", redirect_uri="https://wms.example/cb")
    return XeroLedger(auth=auth, tokens={"access_token": "AT", "refresh_token": "RT",
                                         "expires_at": time.time() + 1000}, tenant_id=TENANT)


def test_the_consent_page_asks_only_for_scopes_xero_documents():
    query = parse_qs(urlparse(XeroAuth(client_id="C", client_secret="S", redirect_uri="https://wms.example/cb")
                              .authorize_url("STATE")).query)
    scopes = set(query["scope"][0].split())
    assert scopes <= DOCUMENTED_SCOPES, scopes - DOCUMENTED_SCOPES  # no `payroll.leaveapplications`
    # Invoices (create, status, e-mail, PDF): the granular `accounting.invoices`, not the broad
    # `accounting.transactions` that apps created since 2 March 2026 cannot request.
    assert "accounting.invoices" in scopes and "accounting.transactions" not in scopes
    # Payroll AU: Employees and LeaveApplications (and .../reject) are `payroll.employees`; PayItems is
    # `payroll.settings` or `payroll.settings.read` (xero-payroll-au.yaml, security of each path).
    assert "payroll.employees" in scopes and scopes & {"payroll.settings", "payroll.settings.read"}
    assert "offline_access" in scopes


@responses.activate
def test_payments_of_an_invoice_are_read_from_the_documented_summary():
    # https://github.com/XeroAPI/Xero-OpenAPI/blob/master/xero_accounting.yaml, GET /Invoices example: an
    # invoice's Payments carry PaymentID, Date (/Date(ms+0000)/), Amount, CurrencyRate, no Status.
    invoice_id = "046d8a6d-1ae1-4b4d-9340-5601bdf41b87"
    responses.get(f"{ACCOUNTING}/Invoices", json={
        "Id": "900c500b-e83c-4ce2-902a-b8ba04751748", "Status": "OK", "ProviderName": "Provider Name Example",
        "DateTimeUTC": "/Date(1552326816230)/",
        "pagination": {"page": 1, "pageSize": 100, "pageCount": 1, "itemCount": 1},
        "Invoices": [{
            "Type": "ACCREC", "InvoiceID": invoice_id, "InvoiceNumber": "INV-0002", "Reference": "Red Fish, Blue Fish",
            "Payments": [{"PaymentID": "99ea7f6b-c513-4066-bc27-b7c65dcd76c2", "Date": "/Date(1543449600000+0000)/",
                          "Amount": 46.00, "CurrencyRate": 1.000000, "HasAccount": False,
                          "HasValidationErrors": False}],
            "CreditNotes": [], "Prepayments": [], "Overpayments": [], "AmountDue": 0.00, "AmountPaid": 46.00,
            "AmountCredited": 0.00, "SentToContact": True, "CurrencyRate": 1.000000,
            "Contact": {"ContactID": "a3675fc4-f8dd-4f03-ba5b-f1870566bcd7", "Name": "Barney Rubble-83203"},
            "DateString": "2018-10-20T00:00:00", "Date": "/Date(1539993600000+0000)/", "Status": "PAID",
            "LineAmountTypes": "Exclusive", "LineItems": [], "SubTotal": 40.00, "TotalTax": 6.00, "Total": 46.00,
            "CurrencyCode": "NZD", "FullyPaidOnDate": "/Date(1543449600000+0000)/"}]})
    [state] = ledger().get_invoices([invoice_id])
    assert state["status"] == "PAID" and state["total"] == Decimal("46.0") and state["amount_due"] == Decimal("0")
    assert state["contact_name"] == "Barney Rubble-83203"
    assert state["currency"] == "NZD"  # a hand link compares it with the invoice's (session 22)
    assert state["payments"] == [{"ledger_payment_id": "99ea7f6b-c513-4066-bc27-b7c65dcd76c2", "date": "2018-11-29",
                                  "amount": Decimal("46.0"), "reference": None, "status": "AUTHORISED"}]
    query = parse_qs(urlparse(responses.calls[0].request.url).query)
    assert query == {"IDs": [invoice_id], "page": ["1"]}


@responses.activate
def test_terminated_payroll_employees_are_left_out():
    # https://github.com/XeroAPI/Xero-OpenAPI/blob/master/xero-payroll-au.yaml, GET /Employees example (Status
    # ACTIVE or TERMINATED, EmployeeStatus enum).
    responses.get(f"{PAYROLL}/Employees", json={
        "Id": "00000000-0000-0000-0000-000000000000", "Status": "OK", "ProviderName": "provider-name",
        "DateTimeUTC": "/Date(1573621523465)/",
        "Employees": [
            {"EmployeeID": "b34e89ff-770d-4099-b7e5-f968767118bc", "FirstName": "Jack", "MiddleNames": "Johnson",
             "LastName": "Sparrow", "Status": "ACTIVE", "Email": "jack.sparrow@xero.com",
             "StartDate": "/Date(1547164800000+0000)/", "UpdatedDateUTC": "/Date(1572915814000+0000)/"},
            {"EmployeeID": "7aa04979-ded5-44d9-b09a-793749425844", "FirstName": "John", "LastName": "Smith",
             "Status": "TERMINATED", "Email": "jack.sparrow@xero.com", "TerminationDate": "/Date(1572566400000+0000)/",
             "UpdatedDateUTC": "/Date(1572916028000+0000)/"}]})
    assert ledger().list_employees() == [{"id": "b34e89ff-770d-4099-b7e5-f968767118bc",
                                          "email": "jack.sparrow@xero.com", "name": "Jack Sparrow"}]
    assert responses.calls[0].request.headers["Xero-tenant-id"] == TENANT


# ---- the same through the HTTP interface


def test_the_authorize_url_answered_to_an_executive_asks_for_documented_scopes(api, exec_user, set_env):
    set_env(LEDGER_MODE="live", LEDGER_CLIENT_ID="CLIENT", LEDGER_CLIENT_SECRET="SECRET",
            LEDGER_REDIRECT_URI="https://wms.example/cb")
    answer = api.get("/api/admin/connections/ledger/authorize-url", as_=exec_user)
    assert answer.status == 200, answer
    url = answer.json["url"]
    assert url.startswith("https://login.xero.com/identity/connect/authorize?")
    query = parse_qs(urlparse(url).query)
    assert query["response_type"] == ["code"] and query["client_id"] == ["CLIENT"]
    assert query["redirect_uri"] == ["https://wms.example/cb"] and query["state"][0]
    scopes = set(query["scope"][0].split())
    assert scopes <= DOCUMENTED_SCOPES, scopes - DOCUMENTED_SCOPES
    assert {"accounting.invoices", "payroll.employees", "offline_access"} <= scopes


@responses.activate
def test_the_user_mapping_sync_maps_a_user_to_the_active_employee_not_a_terminated_one(api, db, exec_user,
                                                                                       set_env):
    from tests.factories import make_user

    set_env(LEDGER_MODE="live", LEDGER_ACCESS_TOKEN="AT", LEDGER_TENANT_ID=TENANT, PLANNER_MODE="off")
    jack = make_user(db, email="jack.sparrow@wire.test", name="Jack Sparrow")
    db.flush()
    # xero-payroll-au.yaml GET /Employees: a rehired person has a TERMINATED record and an ACTIVE one.
    responses.get(f"{PAYROLL}/Employees", json={"Id": "00000000-0000-0000-0000-000000000000", "Status": "OK",
                                               "Employees": [
        {"EmployeeID": "b34e89ff-770d-4099-b7e5-f968767118bc", "FirstName": "Jack", "LastName": "Sparrow",
         "Status": "ACTIVE", "Email": "jack.sparrow@wire.test"},
        {"EmployeeID": "7aa04979-ded5-44d9-b09a-793749425844", "FirstName": "Jack", "LastName": "Sparrow",
         "Status": "TERMINATED", "Email": "Jack.Sparrow@wire.test",
         "TerminationDate": "/Date(1572566400000+0000)/"}]})
    answer = api.post("/api/admin/connections/user-mappings/sync", as_=exec_user)
    assert answer.status == 200, answer
    mapping = {m["user_id"]: m for m in answer.json["mappings"]}[jack.id]
    assert mapping["ledger_id"] == "b34e89ff-770d-4099-b7e5-f968767118bc"
    assert responses.calls[0].request.headers["Xero-tenant-id"] == TENANT


def _jwt(claims: dict) -> str:
    import base64
    import json

    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
    return f"{part({'alg': 'RS256', 'typ': 'JWT'})}.{part(claims)}.signature"


@responses.activate
def test_the_organisation_connected_is_the_one_just_authorised(api, db, exec_user, set_env):
    from responses import matchers

    from chalicelib.providers.ledger.live import CONNECTIONS_URL, TOKEN_URL

    set_env(LEDGER_MODE="live", LEDGER_CLIENT_ID="CLIENT", LEDGER_CLIENT_SECRET="SECRET",
            LEDGER_REDIRECT_URI="https://wms.example/cb")
    state = parse_qs(urlparse(api.get("/api/admin/connections/ledger/authorize-url", as_=exec_user)
                              .json["url"]).query)["state"][0]
    event = "a2b4c6d8-0000-4000-8000-00000000abcd"
    # https://developer.xero.com/documentation/guides/oauth2/auth-flow: the token answer; the access token is a
    # JWT carrying `authentication_event_id`.
    responses.post(TOKEN_URL, json={"id_token": "x", "access_token": _jwt({"xero_userid": "u1",
                                                                           "authentication_event_id": event}),
                                    "expires_in": 1800, "token_type": "Bearer", "refresh_token": "RT1",
                                    "scope": "openid offline_access"})
    # xero-identity.yaml GET /connections (authEventId filter): the earlier organisation comes first unfiltered.
    new_org = {"id": "c2", "authEventId": event, "tenantId": TENANT, "tenantType": "ORGANISATION",
               "tenantName": "Just Authorised Ltd", "createdDateUtc": "2026-11-27T10:00:00",
               "updatedDateUtc": "2026-11-27T10:00:00"}
    old_org = {"id": "c1", "authEventId": "11111111-0000-4000-8000-000000000000",
               "tenantId": "fe79f7dd-b6d4-4a92-ba7b-538af6289c58", "tenantType": "ORGANISATION",
               "tenantName": "Demo Company (NZ)", "createdDateUtc": "2019-12-07T18:46:19.5165400",
               "updatedDateUtc": "2019-12-07T18:46:19.5187840"}
    responses.get(CONNECTIONS_URL, json=[new_org], match=[matchers.query_param_matcher({"authEventId": event})])
    responses.get(CONNECTIONS_URL, json=[old_org, new_org])
    answer = api.post("/api/admin/connections/ledger/callback", as_=exec_user, json={"code": "CODE", "state": state})
    assert answer.status == 200, answer
    ledger = [c for c in api.get("/api/admin/connections", as_=exec_user).json["connections"]
              if c["provider"] == "ledger"][0]
    assert ledger["org_name"] == "Just Authorised Ltd"


@responses.activate
def test_an_invoice_id_set_by_hand_stays_one_path_segment():
    """A ledger invoice id can be set by hand (a manager's PUT of ledger_invoice_id): `/`, `?` or `..` in it must not
    reach another Xero path (audit S3); the id is sent percent-encoded as one segment."""
    odd = "x/../../Contacts?where=1"
    responses.get(f"{ACCOUNTING}/Invoices/x%2F..%2F..%2FContacts%3Fwhere%3D1", body=b"%PDF-1.4",
                  content_type="application/pdf")
    assert ledger().get_pdf(odd) == b"%PDF-1.4"
    assert responses.calls[0].request.path_url == "/api.xro/2.0/Invoices/x%2F..%2F..%2FContacts%3Fwhere%3D1"


def _allocated_invoice(**fields):
    """GET /Invoices answer of a PAID invoice of 1,100.00 (Xero-OpenAPI xero_accounting.yaml, getInvoices example's
    envelope and fields); `fields` its allocations."""
    return {"Id": "900c500b-e83c-4ce2-902a-b8ba04751748", "Status": "OK", "ProviderName": "Provider Name Example",
            "DateTimeUTC": "/Date(1552326816230)/", "Invoices": [{
                "Type": "ACCREC", "InvoiceID": "046d8a6d-1ae1-4b4d-9340-5601bdf41b87", "InvoiceNumber": "INV-0002",
                "Contact": {"ContactID": "a3675fc4-f8dd-4f03-ba5b-f1870566bcd7", "Name": "Barney Rubble-83203"},
                "Status": "PAID", "LineAmountTypes": "Exclusive", "LineItems": [], "SubTotal": 1000.00,
                "TotalTax": 100.00, "Total": 1100.00, "CurrencyCode": "AUD", "AmountDue": 0.00, "Payments": [],
                "CreditNotes": [], "Prepayments": [], "Overpayments": [], **fields}]}


@responses.activate
def test_prepayments_and_overpayments_applied_are_money_received_credit_notes_are_not():
    # xero_accounting.yaml, components.schemas.Invoice: AmountPaid "Sum of payments received for invoice";
    # AmountCredited "Sum of all credit notes, over-payments and pre-payments applied to invoice"; Prepayments,
    # Overpayments and CreditNotes are arrays of those schemas, whose AppliedAmount is "The amount of applied to an
    # invoice". 400.00 paid + 500.00 of a deposit + 100.00 of an overpayment = 1,000.00 received; 100.00 credited.
    responses.get(f"{ACCOUNTING}/Invoices", json=_allocated_invoice(
        AmountPaid=400.00, AmountCredited=700.00,
        Payments=[{"PaymentID": "99ea7f6b-c513-4066-bc27-b7c65dcd76c2", "Date": "/Date(1543449600000+0000)/",
                   "Amount": 400.00, "CurrencyRate": 1.0, "HasAccount": False, "HasValidationErrors": False}],
        Prepayments=[{"PrepaymentID": "ce0cddef-cf5a-4e59-b638-f225679115a7",
                      "ID": "ce0cddef-cf5a-4e59-b638-f225679115a7", "Date": "/Date(1552435200000+0000)/",
                      "AppliedAmount": 500.00, "Total": 3450.00}],
        Overpayments=[{"OverpaymentID": "ed7f6041-c358-4d1c-9e4f-3b5d6a2f8c91",
                       "ID": "ed7f6041-c358-4d1c-9e4f-3b5d6a2f8c91", "AppliedAmount": 100.00, "Total": 150.00}],
        CreditNotes=[{"CreditNoteID": "7be2c6c3-9f37-4a7e-8e4b-5cd41f7f2d0e", "CreditNoteNumber": "CN-0003",
                      "ID": "7be2c6c3-9f37-4a7e-8e4b-5cd41f7f2d0e", "AppliedAmount": 100.00, "Total": 100.00}]))
    [state] = ledger().get_invoices(["046d8a6d-1ae1-4b4d-9340-5601bdf41b87"])
    assert state["amount_paid"] == Decimal("1000") and state["amount_credited"] == Decimal("100")
    assert state["amount_due"] == Decimal("0") and state["total"] == Decimal("1100")
    assert [p["ledger_payment_id"] for p in state["payments"]] == ["99ea7f6b-c513-4066-bc27-b7c65dcd76c2"]


@responses.activate
def test_an_allocation_without_its_amount_is_read_from_amount_credited():
    """Should a prepayment come without AppliedAmount, the money applied is AmountCredited less the credit notes'
    (AmountCredited sums all three kinds): 1,100.00 credited, 300.00 of it a credit note, 800.00 a deposit."""
    responses.get(f"{ACCOUNTING}/Invoices", json=_allocated_invoice(
        AmountPaid=0.00, AmountCredited=1100.00,
        Prepayments=[{"PrepaymentID": "ce0cddef-cf5a-4e59-b638-f225679115a7",
                      "ID": "ce0cddef-cf5a-4e59-b638-f225679115a7"}],
        CreditNotes=[{"CreditNoteID": "7be2c6c3-9f37-4a7e-8e4b-5cd41f7f2d0e",
                      "ID": "7be2c6c3-9f37-4a7e-8e4b-5cd41f7f2d0e", "AppliedAmount": 300.00}]))
    [state] = ledger().get_invoices(["046d8a6d-1ae1-4b4d-9340-5601bdf41b87"])
    assert state["amount_paid"] == Decimal("800") and state["amount_credited"] == Decimal("300")


@responses.activate
def test_an_invoice_id_of_dots_alone_is_refused_before_any_call():
    """quote leaves dots, requests decodes `%2E` and removes dot segments: an id of `..` sent `Invoices/../Email` to
    Xero's `/Email` with the organisation's token (session 22's injection audit). It is a 400, and nothing is sent."""
    import pytest

    from chalicelib.core.errors import BadRequest

    responses.post(f"{ACCOUNTING}/Email", json={})
    for odd in ("..", ".", ""):
        with pytest.raises(BadRequest, match="not an id"):
            ledger().email_invoice(odd)
    assert len(responses.calls) == 0


def test_a_segment_keeps_dots_inside_an_id():
    from chalicelib.providers.http import segment

    assert segment("INV-1.2") == "INV-1.2" and segment("a..b") == "a..b" and segment("../x") == "..%2Fx"
