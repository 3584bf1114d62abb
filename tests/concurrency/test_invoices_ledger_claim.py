"""Identical ledger actions on one invoice at once (a double click) against a real HTTP server on Postgres: the
invoice is claimed before the ledger is called (`ledger_move_since`), so the ledger is asked once; one request
answers 200 and the others 409. They used to ask the ledger each: pushes made a ledger draft each (all but one
deleted again there), approves met the ledger's refusal (502) or recorded the move twice."""
from __future__ import annotations

import secrets
import threading
import time
from datetime import date
from decimal import Decimal

from sqlalchemy import func, select, text, update

from tests.concurrency.test_concurrency import _all_at_once, _call, _token, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there

N = 8


def _ready(sessions):
    """An executive's token and an invoice of Acme with a line, not yet in the ledger."""
    from tests.areas.deals.factories import make_company
    from tests.areas.invoices.factories import make_invoice, make_invoice_item
    from tests.factories import make_user

    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, due_date=date(2026, 4, 1))
        make_invoice_item(db, invoice, description="Design", quantity=Decimal("2"), unit_price=Decimal("500"))
        db.commit()
    return _token(user), invoice


def _history(db, invoice_id, action):
    from chalicelib.core.models import HistoryEntry

    return db.scalar(select(func.count()).select_from(HistoryEntry)
                     .where(HistoryEntry.entity_type == "invoice", HistoryEntry.entity_id == invoice_id,
                            HistoryEntry.action == action))


def _at_once(base, token, invoice, move):
    answers = _all_at_once([lambda: _call(base, "POST", f"/api/invoices/{invoice.id}/{move}", token)] * N)
    statuses = sorted(status for status, _ in answers)
    assert statuses == [200] + [409] * (N - 1), answers
    return answers


def test_pushes_at_once_make_one_ledger_invoice(live):
    from chalicelib.areas.invoices.models import Invoice
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice

    base, sessions = live
    token, invoice = _ready(sessions)
    answers = _at_once(base, token, invoice, "push-to-ledger")
    linked = next(body["ledger_invoice_id"] for status, body in answers if status == 200)
    with sessions() as db:
        made = db.execute(select(LedgerSandboxInvoice.id, LedgerSandboxInvoice.status)
                          .where(LedgerSandboxInvoice.invoice_number == invoice.invoice_number)).all()
        assert [tuple(row) for row in made] == [(linked, "DRAFT")]  # the ledger was asked once
        stored = db.get(Invoice, invoice.id)
        assert (stored.ledger_invoice_id, stored.status, stored.ledger_move_since) == (linked, "finalised", None)
        assert _history(db, invoice.id, "pushed_to_ledger") == 1


def test_approves_at_once_ask_the_ledger_once(live):
    from chalicelib.areas.invoices.models import Invoice
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice

    base, sessions = live
    token, invoice = _ready(sessions)
    assert _call(base, "POST", f"/api/invoices/{invoice.id}/push-to-ledger", token)[0] == 200
    _at_once(base, token, invoice, "ledger-approve")
    with sessions() as db:
        stored = db.get(Invoice, invoice.id)
        assert (stored.status, stored.ledger_status, stored.ledger_move_since) == ("approved", "AUTHORISED", None)
        assert _history(db, invoice.id, "ledger_approved") == 1
        assert db.get(LedgerSandboxInvoice, stored.ledger_invoice_id).status == "AUTHORISED"


def _while_the_ledger_waits(sessions, hold_ledger, change, request_call):
    """Run `request_call` while another transaction holds the sandbox ledger (`hold_ledger`), so that the request,
    its claim committed, waits inside its ledger call; that transaction then makes `change` to the invoice and
    commits. Answers the request's (status, body) and the claim as the other transaction saw it meanwhile.
    (`while_held` in two steps: the change must come once the request has claimed, not before.)"""
    answers = []
    with sessions() as other:
        hold_ledger(other)
        request = threading.Thread(target=lambda: answers.append(request_call()))
        request.start()
        time.sleep(1.0)  # the request has claimed the invoice and waits in the ledger
        assert request.is_alive()
        claim = change(other)
        other.commit()
    request.join(timeout=20)
    assert len(answers) == 1
    return answers[0], claim


def _change_and_read_claim(invoice_id, **values):
    """The other transaction's change to the invoice (no wait: the request's claim is committed and it holds no
    lock on the invoice while the ledger answers); answers the claim it sees."""
    def run(other):
        from chalicelib.areas.invoices.models import Invoice

        other.execute(update(Invoice).where(Invoice.id == invoice_id).values(**values))
        return other.scalar(select(Invoice.ledger_move_since).where(Invoice.id == invoice_id))
    return run


def test_an_approve_whose_own_move_a_sync_recorded_while_the_ledger_answered_is_kept(live):
    """A sync that read the ledger after the approve reached it records AUTHORISED while the approve holds the
    claim (the syncs take none): the approve, once the ledger answers, finds the state it made itself and is kept
    (the guard of tests/concurrency/test_invoices_races.py, met in the order the claim leaves possible)."""
    from chalicelib.areas.invoices.models import Invoice
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice

    base, sessions = live
    token, invoice = _ready(sessions)
    ledger_id = _call(base, "POST", f"/api/invoices/{invoice.id}/push-to-ledger", token)[1]["ledger_invoice_id"]
    (status, body), claim = _while_the_ledger_waits(
        sessions,
        lambda other: other.execute(select(LedgerSandboxInvoice.id).where(LedgerSandboxInvoice.id == ledger_id)
                                    .with_for_update()),
        _change_and_read_claim(invoice.id, ledger_status="AUTHORISED"),
        lambda: _call(base, "POST", f"/api/invoices/{invoice.id}/ledger-approve", token))
    assert status == 200, body
    assert claim is not None  # committed before the ledger was called
    with sessions() as db:
        stored = db.get(Invoice, invoice.id)
        assert (stored.status, stored.ledger_status, stored.ledger_move_since) == ("approved", "AUTHORISED", None)


def test_a_push_that_met_a_local_void_while_the_ledger_answered_undoes_its_ledger_invoice(live):
    """An update voids the invoice while its push holds the claim and the ledger answers: the push finds it voided
    once it has the row, deletes its own ledger invoice and answers 409, and the claim goes."""
    from chalicelib.areas.invoices.models import Invoice
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice

    base, sessions = live
    token, invoice = _ready(sessions)
    (status, body), claim = _while_the_ledger_waits(
        sessions,
        lambda other: other.execute(text("LOCK TABLE ledger_sandbox_invoices IN SHARE MODE")),  # no insert meanwhile
        _change_and_read_claim(invoice.id, status="voided"),
        lambda: _call(base, "POST", f"/api/invoices/{invoice.id}/push-to-ledger", token))
    assert status == 409, body
    assert claim is not None
    with sessions() as db:
        stored = db.get(Invoice, invoice.id)
        assert (stored.status, stored.ledger_invoice_id, stored.ledger_move_since) == ("voided", None, None)
        made = db.scalars(select(LedgerSandboxInvoice.status)
                          .where(LedgerSandboxInvoice.invoice_number == invoice.invoice_number)).all()
        assert made == ["DELETED"]  # the push's own ledger invoice, undone


def test_a_move_that_waited_for_a_change_before_its_claim_asks_the_ledger_nothing(live):
    """The claim reads the invoice as a write it waited for left it: a push after a local void, or an approve after
    a sync that read AUTHORISED, is refused before the ledger is called (they used to call it and undo, or keep)."""
    from chalicelib.areas.invoices.models import Invoice
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice

    base, sessions = live
    token, voided = _ready(sessions)
    status, body = while_held(
        sessions, lambda other: other.execute(update(Invoice).where(Invoice.id == voided.id).values(status="voided")),
        lambda: _call(base, "POST", f"/api/invoices/{voided.id}/push-to-ledger", token))
    assert (status, body["error"]) == (409, "A voided invoice cannot be pushed")
    token, invoice = _ready(sessions)
    ledger_id = _call(base, "POST", f"/api/invoices/{invoice.id}/push-to-ledger", token)[1]["ledger_invoice_id"]
    status, body = while_held(
        sessions, lambda other: other.execute(update(Invoice).where(Invoice.id == invoice.id)
                                              .values(ledger_status="AUTHORISED")),
        lambda: _call(base, "POST", f"/api/invoices/{invoice.id}/ledger-approve", token))
    assert (status, body["error"]) == (409, "A ledger invoice that is AUTHORISED cannot be approved")
    with sessions() as db:
        assert not db.scalars(select(LedgerSandboxInvoice.id)
                              .where(LedgerSandboxInvoice.invoice_number == voided.invoice_number)).all()  # not asked
        assert db.get(LedgerSandboxInvoice, ledger_id).status == "DRAFT"  # not asked
        assert [db.get(Invoice, i.id).ledger_move_since for i in (voided, invoice)] == [None, None]
