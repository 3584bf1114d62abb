"""The live ledger (Xero) and planner (Productive) adapters, with `responses`, against the request and
answer shapes of their public API documents: OAuth code exchange and tenant lookup, the tenant header, an
expired access token refreshed once (rotating refresh tokens stored encrypted), 429 with Retry-After,
errors mapped to 502 with the provider's message, paging; Productive's token check, people and bookings."""
import json
import time
from decimal import Decimal
from urllib.parse import parse_qs, urlparse

import pytest
import responses

from chalicelib.core import crypto
from chalicelib.core.errors import BadGateway, BadRequest, GatewayTimeout, ServiceUnavailable
from chalicelib.providers import http as provider_http
from chalicelib.providers.ledger.live import ACCOUNTING, CONNECTIONS_URL, PAYROLL, TOKEN_URL, XeroAuth, XeroLedger
from chalicelib.providers.planner.live import ProductivePlanner

TENANT = "70784a63-d24b-46a9-a4db-0e70a274b056"
INVOICE = "243216c5-369e-4056-ac67-05388f86dc81"


@pytest.fixture
def waits(monkeypatch):
    slept = []
    monkeypatch.setattr(provider_http, "sleep", slept.append)
    return slept


def auth():
    return XeroAuth(client_id="CLIENT", client_secret="SECRET", redirect_uri="https://wms.example/cb")


def invoice_answer(status="DRAFT", **extra):
    return {"Id": "x", "Status": "OK", "Invoices": [{"Type": "ACCREC", "InvoiceID": INVOICE, "InvoiceNumber": "INV-1",
                                                     "Status": status, "Total": 110.0, "AmountDue": 110.0,
                                                     "AmountPaid": 0.0, **extra}]}


@responses.activate
def test_authorisation_url_code_exchange_and_tenant():
    url = auth().authorize_url("STATE123")
    query = parse_qs(urlparse(url).query)
    assert url.startswith("https://login.xero.com/identity/connect/authorize?")
    assert query["response_type"] == ["code"] and query["client_id"] == ["CLIENT"] and query["state"] == ["STATE123"]
    assert "offline_access" in query["scope"][0] and "accounting.invoices" in query["scope"][0]
    responses.post(TOKEN_URL, json={"id_token": "id", "access_token": "AT1", "expires_in": 1800, "token_type": "Bearer",
                                    "refresh_token": "RT1", "scope": "openid offline_access"})
    responses.get(CONNECTIONS_URL, json=[{"id": "c1", "authEventId": "e1", "tenantId": TENANT,
                                          "tenantType": "ORGANISATION", "tenantName": "Demo Company (AU)",
                                          "createdDateUtc": "2026-01-01T00:00:00", "updatedDateUtc": None}])
    got = auth().exchange_code("CODE")
    assert got["access_token"] == "AT1" and got["refresh_token"] == "RT1" and got["tenant_id"] == TENANT
    assert got["org_name"] == "Demo Company (AU)" and got["expires_at"] > time.time() + 1700
    token_call = responses.calls[0].request
    assert token_call.headers["Authorization"] == "Basic Q0xJRU5UOlNFQ1JFVA=="  # CLIENT:SECRET
    assert parse_qs(token_call.body) == {"grant_type": ["authorization_code"], "code": ["CODE"],
                                         "redirect_uri": ["https://wms.example/cb"]}
    assert responses.calls[1].request.headers["Authorization"] == "Bearer AT1"


@responses.activate
def test_a_refused_code_is_400_with_xeros_message():
    responses.post(TOKEN_URL, status=400, json={"error": "invalid_grant"})
    with pytest.raises(BadRequest, match="invalid_grant"):
        auth().exchange_code("OLD")


@responses.activate
def test_create_invoice_request_shape_and_tenant_header(waits):
    responses.put(f"{ACCOUNTING}/Invoices", json=invoice_answer())
    ledger = XeroLedger(auth=auth(), tokens={"access_token": "AT", "refresh_token": "RT",
                                             "expires_at": time.time() + 1000}, tenant_id=TENANT)
    made = ledger.create_invoice({"invoice_number": "INV-1", "contact_name": "Acme", "date": "2026-03-01",
                                  "due_date": "2026-03-31", "currency": "AUD", "reference": None,
                                  "lines": [{"description": "Design", "quantity": Decimal("2"),
                                             "unit_amount": Decimal("50"), "account_code": "200", "tax_type": None}]})
    assert made == {"ledger_invoice_id": INVOICE, "status": "DRAFT"}
    request = responses.calls[0].request
    assert request.headers["Authorization"] == "Bearer AT" and request.headers["Xero-tenant-id"] == TENANT
    body = json.loads(request.body)["Invoices"][0]
    assert body["Type"] == "ACCREC" and body["Status"] == "DRAFT" and body["Contact"] == {"Name": "Acme"}
    assert body["LineItems"] == [{"Description": "Design", "Quantity": 2.0, "UnitAmount": 50.0, "AccountCode": "200"}]
    assert body["LineAmountTypes"] == "Exclusive" and body["DueDate"] == "2026-03-31"


@responses.activate
def test_an_expired_token_is_refreshed_once_and_the_rotated_pair_handed_on(waits):
    stored = []
    responses.post(f"{ACCOUNTING}/Invoices/{INVOICE}", status=401,
                   json={"Title": "Unauthorized", "Status": 401, "Detail": "TokenExpired: token expired"})
    responses.post(f"{ACCOUNTING}/Invoices/{INVOICE}", json=invoice_answer("AUTHORISED"))
    responses.post(TOKEN_URL, json={"access_token": "AT2", "refresh_token": "RT2", "expires_in": 1800,
                                    "token_type": "Bearer"})
    ledger = XeroLedger(auth=auth(), tokens={"access_token": "AT1", "refresh_token": "RT1",
                                             "expires_at": time.time() + 1000}, tenant_id=TENANT,
                        on_tokens=stored.append)
    assert ledger.set_status(INVOICE, "AUTHORISED") == {"status": "AUTHORISED"}
    assert [c.request.url.split("?")[0] for c in responses.calls] == [f"{ACCOUNTING}/Invoices/{INVOICE}", TOKEN_URL,
                                                                      f"{ACCOUNTING}/Invoices/{INVOICE}"]
    assert parse_qs(responses.calls[1].request.body) == {"grant_type": ["refresh_token"], "refresh_token": ["RT1"]}
    assert responses.calls[2].request.headers["Authorization"] == "Bearer AT2"
    assert stored[0]["refresh_token"] == "RT2" and stored[0]["access_token"] == "AT2"


@responses.activate
def test_a_token_past_its_expiry_is_refreshed_before_the_call(waits):
    responses.post(TOKEN_URL, json={"access_token": "AT9", "refresh_token": "RT9", "expires_in": 1800})
    responses.post(f"{ACCOUNTING}/Invoices/{INVOICE}/Email", status=204)
    ledger = XeroLedger(auth=auth(), tokens={"access_token": "OLD", "refresh_token": "RT8",
                                             "expires_at": time.time() - 5}, tenant_id=TENANT)
    ledger.email_invoice(INVOICE)
    assert responses.calls[1].request.headers["Authorization"] == "Bearer AT9"
    assert len(responses.calls) == 2


@responses.activate
def test_429_waits_retry_after_then_retries_once(waits):
    responses.get(f"{ACCOUNTING}/Invoices", status=429, headers={"Retry-After": "2"})
    responses.get(f"{ACCOUNTING}/Invoices", json={"Invoices": [invoice_answer("PAID", AmountPaid=110.0, AmountDue=0.0,
        Payments=[{"PaymentID": "p1", "Date": "/Date(1775001600000+0000)/", "Amount": 110.0,
                   "Reference": "EFT"}])["Invoices"][0]]})
    ledger = XeroLedger(auth=None, tokens={"access_token": "AT"}, tenant_id=TENANT)
    states = ledger.get_invoices([INVOICE])
    assert waits == [2.0]
    assert states[0]["status"] == "PAID" and states[0]["amount_paid"] == Decimal("110.0")
    assert states[0]["payments"][0]["ledger_payment_id"] == "p1" and states[0]["payments"][0]["date"] == "2026-04-01"
    assert parse_qs(urlparse(responses.calls[1].request.url).query)["IDs"] == [INVOICE]


@responses.activate
def test_a_long_retry_after_is_503(waits, set_env):
    responses.get(f"{ACCOUNTING}/Invoices/{INVOICE}", status=429, headers={"Retry-After": "60"})
    with pytest.raises(ServiceUnavailable, match="retry after 60 s"):
        XeroLedger(auth=None, tokens={"access_token": "AT"}, tenant_id=TENANT).get_pdf(INVOICE)
    assert waits == []


@responses.activate
def test_errors_are_502_with_xeros_message():
    responses.put(f"{ACCOUNTING}/Invoices", status=400, json={
        "ErrorNumber": 10, "Type": "ValidationException", "Message": "A validation exception occurred",
        "Elements": [{"ValidationErrors": [{"Message": "Account code '999' is not a valid code for this document."}]}]})
    ledger = XeroLedger(auth=None, tokens={"access_token": "AT"}, tenant_id=TENANT)
    with pytest.raises(BadGateway, match="Account code '999' is not a valid code"):
        ledger.create_invoice({"invoice_number": "I", "contact_name": "A", "date": "2026-01-01", "lines": []})
    responses.get(f"{ACCOUNTING}/Invoices/{INVOICE}", body=b"%PDF-1.4 bytes", content_type="application/pdf")
    assert ledger.get_pdf(INVOICE) == b"%PDF-1.4 bytes"
    assert responses.calls[-1].request.headers["Accept"] == "application/pdf"


@responses.activate
def test_payroll_employees_are_paged():
    page1 = [{"EmployeeID": f"e{i}", "FirstName": "A", "LastName": str(i), "Email": f"A{i}@X.test"} for i in range(100)]
    responses.get(f"{PAYROLL}/Employees", json={"Employees": page1})
    responses.get(f"{PAYROLL}/Employees", json={"Employees": [{"EmployeeID": "last", "FirstName": "Z"}]})
    people = XeroLedger(auth=None, tokens={"access_token": "AT"}, tenant_id=TENANT).list_employees()
    assert len(people) == 101 and people[0] == {"id": "e0", "email": "a0@x.test", "name": "A 0"}
    assert [parse_qs(urlparse(c.request.url).query)["page"] for c in responses.calls] == [["1"], ["2"]]


@responses.activate
def test_the_stored_connection_is_used_and_refreshed_tokens_are_stored_encrypted(db, exec_user, set_env, waits):
    from chalicelib.areas.connections.models import Connection
    from chalicelib.core.ids import utcnow
    from chalicelib.providers.ledger import get_ledger

    set_env(LEDGER_MODE="live", LEDGER_CLIENT_ID="CLIENT", LEDGER_CLIENT_SECRET="SECRET",
            LEDGER_REDIRECT_URI="https://wms.example/cb")
    with pytest.raises(ServiceUnavailable):
        get_ledger(db)
    db.add(Connection(provider="ledger", external_id=TENANT, connected_at=utcnow(), secret=crypto.encrypt(json.dumps(
        {"access_token": "AT1", "refresh_token": "RT1", "expires_at": time.time() - 10}))))
    db.flush()
    responses.post(TOKEN_URL, json={"access_token": "AT2", "refresh_token": "RT2", "expires_in": 1800})
    responses.get(f"{ACCOUNTING}/Invoices", json={"Invoices": []})
    assert get_ledger(db).get_invoices([INVOICE]) == []
    assert responses.calls[1].request.headers["Xero-tenant-id"] == TENANT
    db.expire_all()
    row = db.get(Connection, "ledger")
    assert "RT2" not in row.secret and json.loads(crypto.decrypt(row.secret))["refresh_token"] == "RT2"


@responses.activate
def test_timeouts_are_504():
    import requests

    responses.get(f"{ACCOUNTING}/Invoices/{INVOICE}", body=requests.Timeout("slow"))
    with pytest.raises(GatewayTimeout):
        XeroLedger(auth=None, tokens={"access_token": "AT"}, tenant_id=TENANT).get_pdf(INVOICE)


# ---------------------------------------------------------------- Productive

BASE = "https://api.productive.io/api/v2"


@responses.activate
def test_productive_token_check_people_and_bookings(waits):
    responses.get(f"{BASE}/organization_memberships", json={
        "data": [{"id": "m1", "type": "organization_memberships",
                  "relationships": {"organization": {"data": {"type": "organizations", "id": "4242"}}}}],
        "included": [{"id": "4242", "type": "organizations", "attributes": {"name": "Agency Ltd"}}]})
    planner = ProductivePlanner(api_token="PT", organization_id=None)
    assert planner.verify() == {"organization_id": "4242", "org_name": "Agency Ltd"}
    assert responses.calls[0].request.headers["X-Auth-Token"] == "PT"
    assert "X-Organization-Id" not in responses.calls[0].request.headers
    responses.get(f"{BASE}/people", json={"data": [{"id": "1", "type": "people", "attributes": {
        "first_name": "Ann", "last_name": "Lee", "email": "Ann@Agency.test"}}], "meta": {"total_pages": 2}})
    responses.get(f"{BASE}/people", status=429, headers={"Retry-After": "1"})
    responses.get(f"{BASE}/people", json={"data": [{"id": "2", "type": "people", "attributes": {
        "first_name": "Bo", "email": None}}], "meta": {"total_pages": 2}})
    people = planner.list_people()
    assert people == [{"id": "1", "email": "ann@agency.test", "name": "Ann Lee"}, {"id": "2", "email": None, "name": "Bo"}]
    assert waits == [1.0] and responses.calls[-1].request.headers["X-Organization-Id"] == "4242"
    assert parse_qs(urlparse(responses.calls[-1].request.url).query)["page[number]"] == ["2"]
    responses.post(f"{BASE}/bookings", status=201, json={"data": {"id": "b77", "type": "bookings"}})
    assert planner.create_booking(person_id="1", started_on="2026-05-04", ended_on="2026-05-08", event_id="9",
                                  note="Annual leave") == {"id": "b77"}
    sent = json.loads(responses.calls[-1].request.body)["data"]
    assert responses.calls[-1].request.headers["Content-Type"] == "application/vnd.api+json"
    assert sent["type"] == "bookings" and sent["attributes"]["started_on"] == "2026-05-04"
    assert sent["attributes"]["time"] == 480 and sent["relationships"]["person"]["data"] == {"type": "people", "id": "1"}
    assert sent["relationships"]["event"]["data"] == {"type": "events", "id": "9"}
    responses.delete(f"{BASE}/bookings/b77", status=204)
    planner.delete_booking("b77")


@responses.activate
def test_productive_refuses_a_token_with_its_message(api, exec_user, set_env):
    set_env(PLANNER_MODE="live")
    responses.get(f"{BASE}/organization_memberships", status=401,
                  json={"errors": [{"status": "401", "title": "Unauthorized", "detail": "Invalid authentication token"}]})
    answer = api.put("/api/admin/connections/planner", as_=exec_user, json={"api_token": "bad"})
    assert answer.status == 400 and "Invalid authentication token" in answer.json["error"]
    responses.post(f"{BASE}/bookings", status=422, json={"errors": [{"detail": "person must exist"}]})
    with pytest.raises(BadGateway, match="person must exist"):
        ProductivePlanner(api_token="PT", organization_id="1").create_booking(person_id="x", started_on="2026-01-01",
                                                                              ended_on="2026-01-02")


def _full_pages(key: str, size: int, limit: int = 6, meta: dict | None = None):
    """A provider that always answers a full page (then, past `limit` calls, no answer at all)."""
    import requests

    calls = []

    def answer(request):
        calls.append(request.url)
        if len(calls) > limit:
            raise requests.ConnectionError("the test stops an endless listing")
        items = [{"EmployeeID": f"e{len(calls)}-{i}", "InvoiceID": f"i{len(calls)}-{i}", "id": f"{len(calls)}{i}",
                  "type": "people", "attributes": {"first_name": "A"}} for i in range(size)]
        return 200, {}, json.dumps({key: items, **({"meta": meta} if meta else {})})
    return calls, answer


@responses.activate
def test_xero_paging_is_bounded(monkeypatch):
    from chalicelib.providers.ledger import live as ledger_live

    monkeypatch.setattr(ledger_live, "MAX_PAGES", 3, raising=False)
    calls, answer = _full_pages("Employees", 100)
    responses.add_callback(responses.GET, f"{PAYROLL}/Employees", callback=answer, content_type="application/json")
    ledger = XeroLedger(auth=None, tokens={"access_token": "AT"}, tenant_id=TENANT)
    with pytest.raises(BadGateway, match="too many pages"):
        ledger.list_employees()
    assert len(calls) == 3
    calls, answer = _full_pages("Invoices", 100)
    responses.add_callback(responses.GET, f"{ACCOUNTING}/Invoices", callback=answer, content_type="application/json")
    with pytest.raises(BadGateway, match="too many pages"):
        ledger.get_invoices([INVOICE])
    assert len(calls) == 3


@responses.activate
def test_productive_paging_is_bounded(monkeypatch):
    from chalicelib.providers.planner import live as planner_live

    monkeypatch.setattr(planner_live, "MAX_PAGES", 3, raising=False)
    calls, answer = _full_pages("data", 2, meta={"total_pages": 1000, "total_count": 2000})
    responses.add_callback(responses.GET, f"{BASE}/people", callback=answer, content_type="application/json")
    with pytest.raises(BadGateway, match="too many pages"):
        ProductivePlanner(api_token="PT", organization_id="1").list_people()
    assert len(calls) == 3
