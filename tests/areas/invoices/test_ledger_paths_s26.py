"""Session 26 (audit "costly calls anyone can repeat"), the ledger calls left after 65bcde4 bounded the detail's live
read and the batch route: Xero allows 60 calls a minute and 5,000 a day per organisation.

- GET /api/invoices/:id/pdf (invoices:view, every employee) asked the ledger for the PDF on each request: now an
  hourly allowance per user (core.allowance `invoice_pdf`), 429 with `retry_after` past it, the ledger not asked.
- The detail's live read that failed, or found the invoice gone from the ledger, wrote nothing: every view asked again.
  Now the time of the last ask (`ledger_asked_at`, whatever the answer) bounds it to one a LIVE_READ_SECONDS.
- POST /api/invoices/:id/sync-ledger (invoices:update) asked the ledger on each call: within LIVE_READ_SECONDS of the
  last read or ask it answers the stored state."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import text

from chalicelib.core.allowance import PER_HOUR
from chalicelib.core.errors import BadGateway
from chalicelib.core.ids import utcnow
from chalicelib.core.models import ProviderUse
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item
from tests.factories import make_user

from .test_ledger_reads_s26 import _shift_reads, ledger_read_long_ago

N = 8


@pytest.fixture
def ledger_calls(monkeypatch):
    """Each sandbox ledger read, in order: ("get_invoices", ids) or ("get_pdf", ledger id)."""
    from chalicelib.providers.ledger.sandbox import SandboxLedger

    calls: list[tuple] = []
    get_invoices, get_pdf = SandboxLedger.get_invoices, SandboxLedger.get_pdf

    def counted(self, ids):
        calls.append(("get_invoices", tuple(ids)))
        return get_invoices(self, ids)

    def counted_pdf(self, ledger_id):
        calls.append(("get_pdf", ledger_id))
        return get_pdf(self, ledger_id)

    monkeypatch.setattr(SandboxLedger, "get_invoices", counted)
    monkeypatch.setattr(SandboxLedger, "get_pdf", counted_pdf)
    return calls


@pytest.fixture
def ledger_failing(monkeypatch, ledger_calls):
    """The sandbox ledger refusing every read (counted in `ledger_calls` all the same)."""
    from chalicelib.providers.ledger.sandbox import SandboxLedger

    def refused(self, ids):
        ledger_calls.append(("get_invoices", tuple(ids)))
        raise BadGateway("The accounting ledger refused the request")

    monkeypatch.setattr(SandboxLedger, "get_invoices", refused)
    return ledger_calls


def _linked(api, db, exec_user):
    company = make_company(db, name="Acme Pty")
    invoice = make_invoice(db, company_id=company.id, due_date=date(2026, 4, 1))
    make_invoice_item(db, invoice, description="Design", quantity=Decimal("2"), unit_price=Decimal("500"))
    invoice.subtotal, invoice.tax, invoice.total = Decimal("1000"), Decimal("100"), Decimal("1100")
    db.flush()
    assert api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=exec_user).status == 200
    db.expire_all()
    return invoice


def _asked_long_ago(db) -> None:
    """Every invoice's last ledger read and ask moved an hour back (past LIVE_READ_SECONDS)."""
    ledger_read_long_ago(db)


def _gets(calls):
    return [call for call in calls if call[0] == "get_invoices"]


# --- a) the PDF ---------------------------------------------------------------------------------------------------

def test_pdf_is_counted_per_user_and_refused_past_the_hourly_allowance(api, db, exec_user, ledger_calls):
    invoice = _linked(api, db, exec_user)
    employee, other = make_user(db, access_level="employee"), make_user(db, access_level="employee")
    db.add_all([ProviderUse(kind="invoice_pdf", key=employee.id, created_at=utcnow() - timedelta(minutes=50))
                for _ in range(PER_HOUR["invoice_pdf"] - 1)])
    db.flush()
    ledger_calls.clear()
    assert api.get(f"/api/invoices/{invoice.id}/pdf", as_=employee).status == 200  # the last of the hour
    assert ledger_calls == [("get_pdf", invoice.ledger_invoice_id)]
    for _ in range(N):
        refused = api.get(f"/api/invoices/{invoice.id}/pdf", as_=employee)
        assert refused.status == 429, refused
        assert refused.json["error"] and 590 <= refused.json["retry_after"] <= 601, refused.json
    assert len(ledger_calls) == 1, ledger_calls  # the ledger was not asked past the allowance
    assert api.get(f"/api/invoices/{invoice.id}/pdf", as_=other).status == 200  # per user
    assert len(ledger_calls) == 2


def test_a_pdf_loop_stops_at_the_allowance(api, db, exec_user, ledger_calls):
    invoice = _linked(api, db, exec_user)
    employee = make_user(db, access_level="employee")
    ledger_calls.clear()
    statuses = [api.get(f"/api/invoices/{invoice.id}/pdf", as_=employee).status
                for _ in range(PER_HOUR["invoice_pdf"] + 3)]
    assert statuses == [200] * PER_HOUR["invoice_pdf"] + [429] * 3, statuses
    assert len(ledger_calls) == PER_HOUR["invoice_pdf"]


def test_a_pdf_the_ledger_fails_still_counts(api, db, exec_user, monkeypatch):
    from chalicelib.providers.ledger.sandbox import SandboxLedger

    invoice = _linked(api, db, exec_user)
    employee = make_user(db, access_level="employee")

    def refused(self, ledger_id):
        raise BadGateway("The accounting ledger refused the request")

    monkeypatch.setattr(SandboxLedger, "get_pdf", refused)
    assert api.get(f"/api/invoices/{invoice.id}/pdf", as_=employee).status == 502
    used = db.scalar(text("SELECT count(*) FROM provider_uses WHERE kind = 'invoice_pdf' AND key = :key"),
                     {"key": employee.id})
    assert used == 1


# --- b) the detail's live read that fails or finds nothing --------------------------------------------------------

def test_detail_when_the_ledger_no_longer_holds_the_invoice_asks_once_a_window(api, db, exec_user, ledger_calls):
    from chalicelib.areas.invoices.service_ledger_sync import LIVE_READ_SECONDS

    invoice = _linked(api, db, exec_user)
    db.execute(text("DELETE FROM ledger_sandbox_invoices"))
    _asked_long_ago(db)
    employee = make_user(db, access_level="employee")
    ledger_calls.clear()
    statuses = [api.get(f"/api/invoices/{invoice.id}", as_=employee).status for _ in range(N)]
    assert statuses == [200] * N, statuses
    assert len(_gets(ledger_calls)) == 1, ledger_calls
    db.expire_all()
    synced = db.scalar(text("SELECT ledger_synced_at FROM invoices WHERE id = :id"), {"id": invoice.id})
    # not claimed as synced: the ledger said nothing (a push writes no ledger_synced_at)
    assert synced is None or synced < utcnow() - timedelta(seconds=LIVE_READ_SECONDS), synced
    _asked_long_ago(db)  # the window passed: the next view asks again
    assert api.get(f"/api/invoices/{invoice.id}", as_=employee).status == 200
    assert len(_gets(ledger_calls)) == 2, ledger_calls


def test_detail_when_the_ledger_fails_asks_once_a_window(api, db, exec_user, ledger_failing):
    invoice = _linked(api, db, exec_user)
    _asked_long_ago(db)
    employee = make_user(db, access_level="employee")
    ledger_failing.clear()
    for _ in range(N):
        response = api.get(f"/api/invoices/{invoice.id}", as_=employee)
        assert response.status == 200 and response.json["invoice"]["ledger_status"] == "DRAFT", response.json
    assert len(_gets(ledger_failing)) == 1, ledger_failing


def test_a_hand_link_clears_the_last_ask(api, db, exec_user, ledger_calls):
    """A failed ask about the ledger invoice linked before does not hold back the read of the one linked now."""
    from .test_ledger_link import LEDGER_TOTALS, _link, _made_in_the_ledger

    before, after = _made_in_the_ledger(db, "Acme Pty"), _made_in_the_ledger(db, "Acme Pty")
    ours = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, **LEDGER_TOTALS)
    assert _link(api, exec_user, ours, before).status == 200
    db.execute(text("DELETE FROM ledger_sandbox_invoices WHERE id = :id"), {"id": before})
    assert api.get(f"/api/invoices/{ours.id}", as_=exec_user).status == 200  # asked, found nothing
    assert _link(api, exec_user, ours, after).status == 200
    ledger_calls.clear()
    response = api.get(f"/api/invoices/{ours.id}", as_=exec_user)
    assert response.status == 200 and response.json["invoice"]["ledger_status"] == "DRAFT", response.json
    assert _gets(ledger_calls) == [("get_invoices", (after,))], ledger_calls


# --- c) the single sync -------------------------------------------------------------------------------------------

def test_single_sync_loop_asks_once_a_window(api, db, exec_user, ledger_calls):
    from chalicelib.areas.invoices.service_ledger_sync import LIVE_READ_SECONDS

    invoice = _linked(api, db, exec_user)
    _asked_long_ago(db)
    manager = make_user(db, access_level="manager")  # invoices: update
    ledger_calls.clear()
    for _ in range(N):
        response = api.post(f"/api/invoices/{invoice.id}/sync-ledger", as_=manager)
        assert response.status == 200, response
        assert response.json["ledger_status"] == "DRAFT" and response.json["invoice"]["id"] == invoice.id
    assert len(_gets(ledger_calls)) == 1, ledger_calls
    _shift_reads(db, LIVE_READ_SECONDS + 1)
    assert api.post(f"/api/invoices/{invoice.id}/sync-ledger", as_=manager).status == 200
    assert len(_gets(ledger_calls)) == 2, ledger_calls


def test_single_sync_right_after_a_view_answers_the_stored_state(api, db, exec_user, ledger_calls):
    invoice = _linked(api, db, exec_user)
    _asked_long_ago(db)
    assert api.get(f"/api/invoices/{invoice.id}", as_=exec_user).status == 200
    ledger_calls.clear()
    response = api.post(f"/api/invoices/{invoice.id}/sync-ledger", as_=exec_user)
    assert response.status == 200 and response.json["ledger_status"] == "DRAFT", response.json
    assert _gets(ledger_calls) == []


def test_single_sync_the_ledger_refuses_is_not_asked_again_within_the_window(api, db, exec_user, ledger_failing):
    invoice = _linked(api, db, exec_user)
    _asked_long_ago(db)
    ledger_failing.clear()
    first = api.post(f"/api/invoices/{invoice.id}/sync-ledger", as_=exec_user)
    assert first.status == 502, first
    for _ in range(N):
        again = api.post(f"/api/invoices/{invoice.id}/sync-ledger", as_=exec_user)
        assert again.status == 200 and again.json["ledger_status"] == "DRAFT", again.json  # the stored state
    assert len(_gets(ledger_failing)) == 1, ledger_failing


def test_single_sync_of_an_invoice_gone_from_the_ledger_asks_once_a_window(api, db, exec_user, ledger_calls):
    invoice = _linked(api, db, exec_user)
    db.execute(text("DELETE FROM ledger_sandbox_invoices"))
    _asked_long_ago(db)
    ledger_calls.clear()
    first = api.post(f"/api/invoices/{invoice.id}/sync-ledger", as_=exec_user)
    assert first.status == 409 and first.json["error"] == "The ledger no longer holds this invoice", first.json
    statuses = [api.post(f"/api/invoices/{invoice.id}/sync-ledger", as_=exec_user).status for _ in range(N)]
    assert statuses == [200] * N, statuses
    assert len(_gets(ledger_calls)) == 1, ledger_calls
