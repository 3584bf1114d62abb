"""The sandbox ledger's moves behave as Xero's (session 32, docs/decisions/invoices.md "The sandbox ledger's moves"):
a move is the ledger's own, kept whatever becomes of the request that asked for it (the sandbox wrote it in the
request's transaction, so a request failing after the ledger moved the invoice undid the move, which Xero never
does), and a move given an Idempotency-Key is replayed as Xero replays it: the same key within 6 minutes answers the
first answer, its refusal included, and does nothing; the key with another move is refused (502)."""
from datetime import date

import pytest

from chalicelib.core.db import unit_of_work
from chalicelib.core.errors import BadGateway, Conflict, GatewayTimeout
from chalicelib.providers.ledger.models import LedgerSandboxInvoice
from chalicelib.providers.ledger.sandbox import SandboxLedger, record_payment

INVOICE = {"invoice_number": "INV-S32", "contact_name": "Acme Pty", "currency": "AUD",
           "lines": [{"description": "Design", "quantity": "2", "unit_amount": "500.00"}]}


def _status(db, ledger_id):
    db.expire_all()
    return db.get(LedgerSandboxInvoice, ledger_id).status


@pytest.fixture
def lose_answer(monkeypatch):
    """The ledger's next status move is done, then its answer lost (504), as a timeout after Xero moved it."""
    real = SandboxLedger.set_status

    def set_status(self, ledger_invoice_id, status, *, idempotency_key=None):
        real(self, ledger_invoice_id, status, idempotency_key=idempotency_key)
        monkeypatch.setattr(SandboxLedger, "set_status", real)
        raise GatewayTimeout("The accounting ledger did not answer in time")

    monkeypatch.setattr(SandboxLedger, "set_status", set_status)


def test_an_approve_whose_answer_is_lost_stays_approved_in_the_ledger(api, db, exec_user, ready, lose_answer):
    ledger_id = api.post(f"/api/invoices/{ready.id}/push-to-ledger", as_=exec_user).json["ledger_invoice_id"]
    assert api.post(f"/api/invoices/{ready.id}/ledger-approve", as_=exec_user).status == 504
    assert _status(db, ledger_id) == "AUTHORISED"  # Xero approved it; the request's rollback does not undo that
    retried = api.post(f"/api/invoices/{ready.id}/ledger-approve", as_=exec_user)  # the same key: the first answer
    assert retried.status == 200, retried
    assert retried.json["invoice"]["ledger_status"] == "AUTHORISED" and _status(db, ledger_id) == "AUTHORISED"


def test_a_move_is_kept_when_the_callers_transaction_rolls_back(db):
    ledger_id = SandboxLedger(db=db).create_invoice(INVOICE)["ledger_invoice_id"]
    with pytest.raises(Conflict), unit_of_work() as uow:  # a request that moves the invoice in the ledger, then fails
        SandboxLedger(db=uow.session).set_status(ledger_id, "AUTHORISED")
        raise Conflict("The invoice changed meanwhile")
    assert _status(db, ledger_id) == "AUTHORISED"


def test_an_email_is_kept_when_the_callers_transaction_rolls_back(db):
    ledger = SandboxLedger(db=db)
    ledger_id = ledger.create_invoice(INVOICE)["ledger_invoice_id"]
    ledger.set_status(ledger_id, "AUTHORISED")
    with pytest.raises(Conflict), unit_of_work() as uow:
        SandboxLedger(db=uow.session).email_invoice(ledger_id)
        raise Conflict("The invoice changed meanwhile")
    db.expire_all()
    assert db.get(LedgerSandboxInvoice, ledger_id).emailed_at is not None  # the client has the e-mail


def test_a_move_repeated_under_its_key_answers_the_first_answer(db):
    ledger = SandboxLedger(db=db)
    ledger_id = ledger.create_invoice(INVOICE)["ledger_invoice_id"]
    assert ledger.set_status(ledger_id, "AUTHORISED", idempotency_key="approve-1") == {"status": "AUTHORISED"}
    assert ledger.set_status(ledger_id, "AUTHORISED", idempotency_key="approve-1") == {"status": "AUTHORISED"}
    with pytest.raises(BadGateway, match="not of valid status"):  # a new key is a new request: refused from AUTHORISED
        ledger.set_status(ledger_id, "AUTHORISED", idempotency_key="approve-2")
    with pytest.raises(BadGateway, match="different request"):
        ledger.set_status(ledger_id, "VOIDED", idempotency_key="approve-1")
    assert _status(db, ledger_id) == "AUTHORISED"


def test_a_refused_move_repeated_under_its_key_is_refused_again(db):
    ledger = SandboxLedger(db=db)
    ledger_id = ledger.create_invoice(INVOICE)["ledger_invoice_id"]
    ledger.set_status(ledger_id, "AUTHORISED")
    record_payment(db, ledger_id, "100.00", on=date(2026, 4, 2))
    with pytest.raises(BadGateway, match="payments allocated"):
        ledger.set_status(ledger_id, "VOIDED", idempotency_key="void-1")
    db.execute(LedgerSandboxInvoice.__table__.update().where(LedgerSandboxInvoice.id == ledger_id)
               .values(payments=[]))  # the payment removed in Xero meanwhile: a void under a new key would pass
    with pytest.raises(BadGateway, match="payments allocated"):  # Xero answers the first answer for 6 minutes
        ledger.set_status(ledger_id, "VOIDED", idempotency_key="void-1")
    assert ledger.set_status(ledger_id, "VOIDED", idempotency_key="void-2") == {"status": "VOIDED"}


def test_an_email_repeated_under_its_key_is_sent_once(db):
    ledger = SandboxLedger(db=db)
    ledger_id = ledger.create_invoice(INVOICE)["ledger_invoice_id"]
    ledger.set_status(ledger_id, "AUTHORISED")
    ledger.email_invoice(ledger_id, idempotency_key="send-1")
    db.expire_all()
    first = db.get(LedgerSandboxInvoice, ledger_id).emailed_at
    ledger.email_invoice(ledger_id, idempotency_key="send-1")
    db.expire_all()
    assert db.get(LedgerSandboxInvoice, ledger_id).emailed_at == first  # not e-mailed again
    ledger.email_invoice(ledger_id, idempotency_key="send-2")
    db.expire_all()
    assert db.get(LedgerSandboxInvoice, ledger_id).emailed_at > first
