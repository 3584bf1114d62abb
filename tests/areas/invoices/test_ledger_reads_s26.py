"""Session 26 (audit "costly calls anyone can repeat"): the invoice detail's live ledger read and the batch sync
route are bounded. Xero allows 60 calls a minute and 5,000 a day per organisation: any employee looping
GET /api/invoices/:id of a linked invoice (one Xero call each), or a manager looping POST /api/invoices/sync-ledger
(every linked invoice re-read each time), locked the ledger out for the day. Now the detail answers the stored
state when the invoice's ledger state was read less than LIVE_READ_SECONDS ago, and a requested batch sync reads
only the invoices not read within REQUEST_SYNC_COOLDOWN_SECONDS; the hourly job still reads them all."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import or_, select, update

from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item
from tests.factories import make_user

N = 8


@pytest.fixture
def ledger_calls(monkeypatch):
    """The ids each sandbox ledger read asked for, in order."""
    from chalicelib.providers.ledger.sandbox import SandboxLedger

    calls: list[list[str]] = []
    original = SandboxLedger.get_invoices

    def counted(self, ids):
        calls.append(list(ids))
        return original(self, ids)

    monkeypatch.setattr(SandboxLedger, "get_invoices", counted)
    return calls


def _linked(api, db, exec_user, n=1):
    company = make_company(db, name="Acme Pty")
    out = []
    for _ in range(n):
        invoice = make_invoice(db, company_id=company.id, due_date=date(2026, 4, 1))
        make_invoice_item(db, invoice, description="Design", quantity=Decimal("2"), unit_price=Decimal("500"))
        invoice.subtotal, invoice.tax, invoice.total = Decimal("1000"), Decimal("100"), Decimal("1100")
        db.flush()
        assert api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=exec_user).status == 200
        out.append(invoice)
    db.expire_all()  # the ledger ids the pushes wrote
    return out


def _shift_reads(db, seconds, ids=None) -> None:
    """The last ledger read and ask (`ledger_synced_at`, `ledger_asked_at`) of the invoices (all read ones without
    `ids`) moved `seconds` into the past; updated_at kept (a ledger move's key is made of it). Computed here, not
    in SQL (`interval`, `make_interval` and `= ANY` are Postgres'), so that it runs on SQLite too (s27)."""
    from chalicelib.areas.invoices.models import Invoice

    db.flush()
    query = select(Invoice.id, Invoice.ledger_synced_at, Invoice.ledger_asked_at, Invoice.updated_at).where(
        or_(Invoice.ledger_synced_at.is_not(None), Invoice.ledger_asked_at.is_not(None)))
    if ids is not None:
        query = query.where(Invoice.id.in_(ids))
    back = timedelta(seconds=seconds)
    for invoice_id, synced, asked, updated in db.execute(query).all():
        db.execute(update(Invoice).where(Invoice.id == invoice_id).values(
            ledger_synced_at=synced and synced - back, ledger_asked_at=asked and asked - back, updated_at=updated),
            execution_options={"synchronize_session": False})
    db.expire_all()


def ledger_read_long_ago(db) -> None:
    """Every invoice's last ledger read moved an hour back, past LIVE_READ_SECONDS and REQUEST_SYNC_COOLDOWN_SECONDS:
    the next detail or requested sync reads the ledger again (the tests that read it twice in a row, session 26)."""
    _shift_reads(db, 3600)


def _age(db, invoices, seconds):
    """Move the invoices' last ledger read `seconds` into the past."""
    _shift_reads(db, seconds, [invoice.id for invoice in invoices])


def test_detail_reads_the_ledger_at_most_once_a_window(api, db, exec_user, ledger_calls):
    invoice, = _linked(api, db, exec_user)
    employee = make_user(db, access_level="employee")  # invoices: view
    ledger_calls.clear()
    for _ in range(N):
        response = api.get(f"/api/invoices/{invoice.id}", as_=employee)
        assert response.status == 200
        assert response.json["invoice"]["ledger_status"] == "DRAFT"
    assert len(ledger_calls) == 1, ledger_calls  # the first view read it; the others answered the stored state

    from chalicelib.areas.invoices.service_ledger_sync import LIVE_READ_SECONDS

    _age(db, [invoice], LIVE_READ_SECONDS + 1)  # the window passed: the next view reads the ledger again
    assert api.get(f"/api/invoices/{invoice.id}", as_=employee).status == 200
    assert len(ledger_calls) == 2, ledger_calls
    assert api.get(f"/api/invoices/{invoice.id}", as_=employee).status == 200
    assert len(ledger_calls) == 2, ledger_calls


def test_a_requested_batch_sync_skips_invoices_read_within_the_cooldown(api, db, exec_user, ledger_calls):
    invoices = _linked(api, db, exec_user, n=3)
    manager = make_user(db, access_level="manager")  # invoices: update
    ledger_calls.clear()
    for _ in range(N):
        response = api.post("/api/invoices/sync-ledger", as_=manager)
        assert response.status == 200 and response.json["errors"] == [], response.json
    assert len(ledger_calls) == 1, ledger_calls  # the first read the three; the others found none to read

    from chalicelib.areas.invoices.service_ledger_sync import REQUEST_SYNC_COOLDOWN_SECONDS

    _age(db, invoices[:1], REQUEST_SYNC_COOLDOWN_SECONDS + 1)  # only the first one's last read is old now
    assert api.post("/api/invoices/sync-ledger", as_=manager).status == 200
    assert ledger_calls[1:] == [[invoices[0].ledger_invoice_id]], ledger_calls


def test_a_detail_read_counts_as_a_read_for_the_batch(api, db, exec_user, ledger_calls):
    invoice, = _linked(api, db, exec_user)
    manager = make_user(db, access_level="manager")
    assert api.get(f"/api/invoices/{invoice.id}", as_=manager).status == 200
    ledger_calls.clear()
    assert api.post("/api/invoices/sync-ledger", as_=manager).status == 200
    assert ledger_calls == []


def test_the_scheduled_sync_still_reads_every_invoice(api, db, exec_user, ledger_calls, aws):
    from chalicelib.areas.invoices.jobs import ledger_invoice_sync

    invoices = _linked(api, db, exec_user, n=3)
    manager = make_user(db, access_level="manager")
    assert api.post("/api/invoices/sync-ledger", as_=manager).status == 200  # all three just read
    ledger_calls.clear()
    ledger_invoice_sync()
    assert sorted(sum(ledger_calls, [])) == sorted(i.ledger_invoice_id for i in invoices)


def test_a_hand_link_to_another_ledger_invoice_is_read_on_the_next_view(api, db, exec_user, ledger_calls):
    """The window is about the ledger invoice last read: a ledger id set by hand clears the last read, so the next
    view reads the invoice now linked, not the stored state of the one before."""
    from .test_ledger_link import LEDGER_TOTALS, _link, _made_in_the_ledger

    before, after = _made_in_the_ledger(db, "Acme Pty"), _made_in_the_ledger(db, "Acme Pty")
    ours = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, **LEDGER_TOTALS)
    assert _link(api, exec_user, ours, before).status == 200
    assert api.get(f"/api/invoices/{ours.id}", as_=exec_user).status == 200  # read: within the window now
    assert _link(api, exec_user, ours, after).status == 200
    ledger_calls.clear()
    response = api.get(f"/api/invoices/{ours.id}", as_=exec_user)
    assert response.status == 200 and response.json["invoice"]["ledger_status"] == "DRAFT", response.json
    assert ledger_calls == [[after]], ledger_calls
