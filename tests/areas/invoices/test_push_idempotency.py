"""A push carries the ledger's Idempotency-Key (docs/decisions/invoices.md, "Idempotency-Key"): a push retried after
the ledger made its invoice but the request failed (a timeout: 504, nothing written here) links that invoice and
makes no second one; a push after a delete in the ledger, or of an invoice whose request changed, makes a new one;
a push that outlived its claim and meets, replayed, the invoice its retry linked does not undo it. Through HTTP,
against the sandbox ledger (which keeps what it made whatever becomes of the request, and replays a key as Xero
does)."""
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from chalicelib.areas.deals.models import Company
from chalicelib.areas.invoices.models import Invoice
from chalicelib.core.errors import GatewayTimeout
from chalicelib.providers.ledger.models import LedgerSandboxInvoice
from chalicelib.providers.ledger.sandbox import SandboxLedger
from tests.areas.invoices.factories import retry_links_meanwhile


def push(api, user, invoice):
    return api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=user)


def _ledger_rows(db, invoice):
    db.expire_all()
    return list(db.scalars(select(LedgerSandboxInvoice)
                           .where(LedgerSandboxInvoice.invoice_number == invoice.invoice_number)
                           .order_by(LedgerSandboxInvoice.created_at)))


def _local(db, invoice):
    db.expire_all()
    stored = db.get(Invoice, invoice.id)
    return stored.status, stored.ledger_invoice_id, stored.ledger_move_since


@pytest.fixture
def times_out_after_making(monkeypatch):
    """The ledger makes the invoice, then its answer is lost: the request answers 504."""
    real = SandboxLedger.create_invoice

    def made_then_timed_out(self, invoice, **kwargs):
        real(self, invoice, **kwargs)
        raise GatewayTimeout("The accounting ledger did not answer in time")

    monkeypatch.setattr(SandboxLedger, "create_invoice", made_then_timed_out)
    return monkeypatch


def test_a_push_retried_after_the_ledger_made_its_invoice_links_that_one(api, db, exec_user, ready,
                                                                         times_out_after_making):
    first = push(api, exec_user, ready)
    assert first.status == 504, first
    assert _local(db, ready) == ("draft", None, None)  # nothing written here, the claim let go
    [made] = _ledger_rows(db, ready)  # the ledger kept what it made, as Xero does
    times_out_after_making.undo()
    retried = push(api, exec_user, ready)
    assert retried.status == 200, retried
    assert retried.json["ledger_invoice_id"] == made.id
    assert [row.id for row in _ledger_rows(db, ready)] == [made.id]  # one ledger invoice, not two
    assert _local(db, ready) == ("finalised", made.id, None)


def test_a_push_after_a_delete_in_the_ledger_makes_a_new_ledger_invoice(api, db, exec_user, ready):
    first = push(api, exec_user, ready).json["ledger_invoice_id"]
    deleted = api.post(f"/api/invoices/{ready.id}/ledger-delete", as_=exec_user)
    assert deleted.status == 200 and deleted.json["invoice"]["status"] == "draft", deleted
    again = push(api, exec_user, ready)
    assert again.status == 200, again
    second = again.json["ledger_invoice_id"]
    assert second != first
    assert [(row.id, row.status) for row in _ledger_rows(db, ready)] == [(first, "DELETED"), (second, "DRAFT")]
    assert _local(db, ready) == ("finalised", second, None)


def test_a_push_whose_request_changed_after_a_timeout_makes_a_new_ledger_invoice(api, db, exec_user, ready,
                                                                                 times_out_after_making):
    """The contact changed (the company renamed: the invoice itself did not) after a push timed out: the ledger
    is not sent the old key with a different request (Xero refuses that), but a new one."""
    assert push(api, exec_user, ready).status == 504
    times_out_after_making.undo()
    db.get(Company, ready.company_id).name = "Acme Holdings"
    db.flush()
    retried = push(api, exec_user, ready)
    assert retried.status == 200, retried
    rows = _ledger_rows(db, ready)
    assert [row.contact_name for row in rows] == ["Acme Pty", "Acme Holdings"]
    assert retried.json["ledger_invoice_id"] == rows[1].id


def test_a_push_meeting_the_invoice_its_retry_linked_does_not_undo_it(api, db, exec_user, ready, monkeypatch):
    """This push outlived its claim; its retry (same key) was answered the same ledger invoice and linked it while
    this one waited for the ledger. That invoice is the invoice's own: not deleted in the ledger, no 409."""
    retry_links_meanwhile(db, monkeypatch, ready)
    answer = push(api, exec_user, ready)
    assert answer.status == 200, answer
    [row] = _ledger_rows(db, ready)
    assert row.status == "DRAFT" and answer.json["ledger_invoice_id"] == row.id
    assert _local(db, ready) == ("finalised", row.id, None)


def test_a_retry_after_the_ledger_forgot_the_key_links_the_first_ledger_invoice(api, db, exec_user, ready,
                                                                               times_out_after_making):
    """Xero keeps a key 6 minutes from its first call, then processes the request as a new one; so does the
    sandbox. This test said the retry then made a second ledger invoice (the limit of the protection); since session
    32 the retry of a push that lost its answer looks in the ledger first and links the first one
    (docs/decisions/invoices.md, "A push retried after the ledger forgot its key";
    test_push_forgotten_key_s32.py)."""
    assert push(api, exec_user, ready).status == 504
    times_out_after_making.undo()
    [made] = _ledger_rows(db, ready)
    db.execute(update(LedgerSandboxInvoice).where(LedgerSandboxInvoice.id == made.id)
               .values(created_at=made.created_at - timedelta(minutes=7)))
    retried = push(api, exec_user, ready)
    assert retried.status == 200, retried
    assert [row.id for row in _ledger_rows(db, ready)] == [made.id]
    assert retried.json["ledger_invoice_id"] == made.id
