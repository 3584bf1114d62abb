"""Session 29, code no test ran in the ledger adapters: the live adapter's token endpoint and connections lookup
answers besides the documented success, an error body that is not Xero's JSON, dates and allocations Xero may
send, an access token that cannot be refreshed, an invoice answer it cannot read; the live and off modes'
configuration; the sandbox's refusals (Xero's words, 502) and its empty lookup. Mocked answers follow the Xero
documents cited in tests/providers/test_ledger_wire.py."""
import time
from decimal import Decimal

import pytest
import responses

from chalicelib.core.errors import BadGateway, BadRequest, ServiceUnavailable
from chalicelib.providers.ledger import get_ledger, get_ledger_auth
from chalicelib.providers.ledger.live import (ACCOUNTING, CONNECTIONS_URL, TOKEN_URL, XeroAuth, XeroLedger,
                                              xero_date, xero_message)
from chalicelib.providers.ledger.sandbox import SandboxLedger, record_payment
from tests.providers.test_ledger_wire import TENANT, _allocated_invoice, ledger

INVOICE = "046d8a6d-1ae1-4b4d-9340-5601bdf41b87"


def auth():
    return XeroAuth(client_id="CLIENT", client_secret="SECRET", redirect_uri="https://wms.example/cb")


# ------------------------------------------------------------------ live: identity.xero.com

@responses.activate
def test_a_refresh_refused_asks_to_reconnect_and_another_token_failure_is_502():
    # https://developer.xero.com/documentation/guides/oauth2/troubleshooting: invalid_grant on a refresh
    responses.post(TOKEN_URL, status=400, json={"error": "invalid_grant"})
    with pytest.raises(BadGateway, match="refused the authorisation: invalid_grant; reconnect the ledger"):
        auth().refresh("RT")
    responses.replace(responses.POST, TOKEN_URL, status=500, body="<html>Server Error</html>")
    with pytest.raises(BadGateway, match="token endpoint failed: <html>Server Error</html>"):
        auth().refresh("RT")
    responses.replace(responses.POST, TOKEN_URL, json={"token_type": "Bearer"})
    with pytest.raises(BadGateway, match="no access token"):
        auth().refresh("RT")


@pytest.mark.parametrize("answer", [{"body": "<html>OK</html>"}, {"json": ["AT"]},
                                    {"json": {"access_token": "AT", "expires_in": "soon"}}])
@responses.activate
def test_a_token_answer_that_cannot_be_read_is_502_never_a_500(answer):
    """Session 29: a 200 whose body was not JSON (a proxy's page), a JSON list, or an unreadable expires_in
    raised ValueError/AttributeError out of the adapter: a 500 on connect and on every ledger call needing a
    refresh. An unreadable expires_in is Xero's 30 minutes; the rest is the provider's failure (502)."""
    responses.post(TOKEN_URL, **answer)
    if "expires_in" in str(answer):
        tokens = auth().refresh("RT")
        assert tokens["access_token"] == "AT" and 1700 < tokens["expires_at"] - time.time() <= 1800
    else:
        with pytest.raises(BadGateway):
            auth().refresh("RT")


@responses.activate
def test_the_connections_lookup_failing_or_naming_no_organisation():
    responses.post(TOKEN_URL, json={"access_token": "AT", "refresh_token": "RT", "expires_in": 1800})
    responses.get(CONNECTIONS_URL, status=403, json={"Title": "Forbidden", "Detail": "AuthenticationUnsuccessful"})
    with pytest.raises(BadGateway, match="connections lookup failed: AuthenticationUnsuccessful"):
        auth().exchange_code("CODE")
    # https://developer.xero.com/documentation/guides/oauth2/tenants: a PRACTICEMANAGER tenant is no organisation
    responses.replace(responses.GET, CONNECTIONS_URL, json=[{"id": "c1", "tenantId": "t1",
                                                             "tenantType": "PRACTICEMANAGER", "tenantName": "XPM"}])
    with pytest.raises(BadRequest, match="no organisation"):
        auth().exchange_code("CODE")


@pytest.mark.parametrize("answer", [{"body": "<html>OK</html>"}, {"json": {"tenants": []}}])
@responses.activate
def test_a_connections_answer_that_cannot_be_read_is_502_never_a_500(answer):
    """Session 29: a body that was not JSON raised ValueError, a JSON object (not Xero's list) iterated its keys
    and raised AttributeError: a 500 from the OAuth callback."""
    responses.post(TOKEN_URL, json={"access_token": "AT", "refresh_token": "RT", "expires_in": 1800})
    responses.get(CONNECTIONS_URL, **answer)
    with pytest.raises((BadGateway, BadRequest)):
        auth().exchange_code("CODE")


# ------------------------------------------------------------------ live: the API

def test_xero_message_of_a_body_that_is_not_json_or_not_an_object():
    import requests

    response = requests.Response()
    response.status_code, response._content = 503, b"  Service Unavailable  "
    assert xero_message(response) == "Service Unavailable"
    response._content = b""
    assert xero_message(response) == "HTTP 503"
    response._content = b"[1, 2]"
    assert xero_message(response) == "HTTP 503"


def test_xero_dates_in_both_forms_and_absent():
    assert xero_date("/Date(1573603200000+0000)/") == "2019-11-13"
    assert xero_date("2019-11-13T00:00:00") == "2019-11-13"
    assert xero_date(None) is None and xero_date("") is None


@responses.activate
def test_an_allocation_without_amount_and_credit_notes_unknown_counts_only_what_is_known():
    """Neither the prepayment's nor the credit note's AppliedAmount: the money applied cannot be told from the
    credit; the known part is counted (logged) and the credit is AmountCredited less the money known."""
    responses.get(f"{ACCOUNTING}/Invoices", json=_allocated_invoice(
        AmountPaid=100.00, AmountCredited=500.00,
        Prepayments=[{"PrepaymentID": "p1", "ID": "p1"}], CreditNotes=[{"CreditNoteID": "n1", "ID": "n1"}]))
    [state] = ledger().get_invoices([INVOICE])
    assert state["amount_paid"] == Decimal("100") and state["amount_credited"] == Decimal("500")


@responses.activate
def test_an_expired_token_without_a_refresh_token_asks_to_reconnect():
    stale = XeroLedger(auth=None, tokens={"access_token": "AT", "expires_at": time.time() - 10}, tenant_id=TENANT)
    with pytest.raises(BadGateway, match="cannot be refreshed; reconnect"):
        stale.get_invoices([INVOICE])
    assert len(responses.calls) == 0


@responses.activate
def test_an_invoice_answer_without_invoices_is_502():
    responses.post(f"{ACCOUNTING}/Invoices/{INVOICE}", json={"Status": "OK"})
    with pytest.raises(BadGateway, match="unreadable invoice"):
        ledger().set_status(INVOICE, "AUTHORISED")


def test_an_idempotency_key_past_xeros_bound_is_refused_before_any_call():
    with pytest.raises(ValueError, match="1 to 128 characters"):
        ledger().email_invoice(INVOICE, idempotency_key="k" * 129)


# ------------------------------------------------------------------ configuration

def test_live_without_the_oauth_app_and_off_are_503(set_env):
    set_env(LEDGER_MODE="live", LEDGER_CLIENT_ID=None)
    with pytest.raises(ServiceUnavailable, match="LEDGER_CLIENT_ID"):
        get_ledger_auth()
    set_env(LEDGER_MODE="off")
    with pytest.raises(ServiceUnavailable, match="not configured"):
        get_ledger_auth()
    with pytest.raises(ServiceUnavailable, match="not configured"):
        get_ledger()


# ------------------------------------------------------------------ the sandbox

def _invoice(db):
    return SandboxLedger(db=db).create_invoice({"invoice_number": "INV-S29", "contact_name": "Acme", "lines": [
        {"description": "Work", "quantity": 1, "unit_amount": "100.00", "tax_type": "OUTPUT"}]})["ledger_invoice_id"]


def test_the_sandbox_refuses_as_xero_does(db):
    sandbox = SandboxLedger(db=db)
    made = _invoice(db)
    with pytest.raises(BadGateway, match="not AUTHORISED"):
        record_payment(db, made, "10.00")  # a draft takes no payment
    with pytest.raises(BadGateway, match="must be AUTHORISED to be emailed"):
        sandbox.email_invoice(made)
    with pytest.raises(BadGateway, match="not of valid status for voided"):
        sandbox.set_status(made, "VOIDED")
    with pytest.raises(BadGateway, match="Idempotency-Key must be 1 to 128"):
        sandbox.set_status(made, "AUTHORISED", idempotency_key="")
    with pytest.raises(BadGateway, match="cannot be found"):
        sandbox.get_pdf("00000000-0000-4000-8000-000000000000")
    assert sandbox.get_invoices([]) == []
