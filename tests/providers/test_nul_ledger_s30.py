"""Session 30, ledger texts with a NUL or a lone surrogate: see tests/providers/test_nul_texts_s30.py."""
from urllib.parse import parse_qs, urlparse

import pytest
import responses
from sqlalchemy import select

from chalicelib.areas.invoices.models import InvoicePayment, LedgerSyncRun
from chalicelib.providers.ledger.live import ACCOUNTING, CONNECTIONS_URL, TOKEN_URL
from chalicelib.providers.payroll.live import PAYROLL
from tests.areas.invoices.test_ledger_prepayments import _xero_invoice, team  # noqa: F401 - fixtures
from tests.providers.test_ledger_wire import TENANT, _jwt
from tests.providers.test_nul_texts_s30 import LONE, NUL, strict

# ---------------------------------------------------------------- the ledger (Xero)

@pytest.mark.parametrize("bad, kept", [(NUL, ""), (LONE, "\ufffd")])
def test_a_payment_reference_with_nul_or_a_lone_surrogate_is_stored_cleaned(api, db, team, bad, kept):  # noqa: F811
    """The sync's write failed: a 400 "A value is out of range or malformed" (NUL) or a 500 (a lone surrogate)."""
    payment = {"PaymentID": "99ea7f6b-c513-4066-bc27-b7c65dcd76c2", "Date": "/Date(1772323200000+0000)/",
               "Amount": 500.00, "Reference": f"EFT{bad} 42", "CurrencyRate": 1.0}
    answer = _xero_invoice(Status="AUTHORISED", AmountPaid=500.0, AmountDue=600.0, Payments=[payment],
                           Contact={"ContactID": "a3675fc4", "Name": f"Acme{bad} Pty"})
    with responses.RequestsMock() as mock:
        mock.get(f"{ACCOUNTING}/Invoices", json=answer)
        synced = api.post(f"/api/invoices/{team.invoice.id}/sync-ledger", as_=team.boss)
    assert synced.status == 200, synced.json
    strict(synced)
    db.expire_all()
    assert db.scalars(select(InvoicePayment.reference)).all() == [f"EFT{kept} 42"]


def test_the_batch_sync_answers_and_records_xeros_refusal_cleaned(api, db, team):  # noqa: F811
    """A lone surrogate in Xero's message went into the run's errors (a `json` column keeps its escape) and the
    route's answer: JSON a strict reader refuses (the service's own response check: a 500). (A NUL the `json`
    column keeps and a strict reader reads: no failure.)"""
    refusal = {"ErrorNumber": 10, "Type": "ValidationException", "Message": f"A validation{LONE} exception occurred"}
    with responses.RequestsMock() as mock:
        mock.get(f"{ACCOUNTING}/Invoices", status=400, json=refusal)
        synced = api.post("/api/invoices/sync-ledger", as_=team.boss)
    assert synced.status == 200, synced.json
    assert [error["error"] for error in strict(synced)["errors"]] == [
        "The accounting ledger refused the request: A validation\ufffd exception occurred"]
    db.expire_all()
    run = db.scalars(select(LedgerSyncRun).order_by(LedgerSyncRun.started_at.desc())).first()
    assert run.errors[0]["error"].endswith("A validation\ufffd exception occurred"), run.errors


def ledger_callback(api, exec_user, set_env, tenant: dict):
    """The ledger's OAuth callback, live, with Xero's connections answering one organisation `tenant`."""
    set_env(LEDGER_MODE="live", LEDGER_CLIENT_ID="CLIENT", LEDGER_CLIENT_SECRET="SECRET",
            LEDGER_REDIRECT_URI="https://wms.example/cb")
    state = parse_qs(urlparse(api.get("/api/admin/connections/ledger/authorize-url", as_=exec_user)
                              .json["url"]).query)["state"][0]
    with responses.RequestsMock() as mock:
        mock.post(TOKEN_URL, json={"access_token": _jwt({"xero_userid": "u1"}), "expires_in": 1800,
                                   "token_type": "Bearer", "refresh_token": "RT1"})
        mock.get(CONNECTIONS_URL, json=[{"id": "c2", "tenantType": "ORGANISATION", **tenant}])
        return api.post("/api/admin/connections/ledger/callback", as_=exec_user, json={"code": "CODE", "state": state})


def test_the_organisation_name_of_a_ledger_connection_is_stored_cleaned(api, db, exec_user, set_env):
    answer = ledger_callback(api, exec_user, set_env,
                             {"tenantId": TENANT, "tenantName": f"Just{NUL} Authorised {LONE}Ltd"})
    assert answer.status == 200, answer.json
    ledger = next(c for c in strict(api.get("/api/admin/connections", as_=exec_user))["connections"]
                  if c["provider"] == "ledger")
    assert ledger["org_name"] == "Just Authorised \ufffdLtd"




# ---------------------------------------------------------------- payroll (Xero Payroll AU)

@pytest.mark.parametrize("bad, kept", [(NUL, ""), (LONE, "\ufffd")])
def test_a_leave_type_name_is_cached_and_answered_cleaned(api, db, employee, set_env, bad, kept):
    """The cache's write failed: a 400 (NUL) or a 500 (a lone surrogate) on GET /api/leave/types."""
    set_env(LEDGER_MODE="live", LEDGER_ACCESS_TOKEN="AT", LEDGER_TENANT_ID=TENANT)
    with responses.RequestsMock() as mock:
        mock.get(f"{PAYROLL}/PayItems", json={"PayItems": {"LeaveTypes": [
            {"LeaveTypeID": "184ea8f7-d143-46dd-bef3-0c60e1aa6fca", "Name": f"Annual{bad} Leave", "IsPaidLeave": True}]}})
        answer = api.get("/api/leave/types", as_=employee)
    assert answer.status == 200, answer.json
    assert [t["name"] for t in strict(answer)["types"]] == [f"Annual{kept} Leave"]
