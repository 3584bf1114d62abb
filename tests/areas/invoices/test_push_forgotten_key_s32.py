"""A push retried after the ledger forgot its Idempotency-Key (session 32; docs/decisions/invoices.md, "A push retried
after the ledger forgot its key"). Xero keeps a key 6 minutes: a push whose create answer was lost (a timeout, the
function killed) and that was retried later made a second ledger invoice with the same number (the sandbox; Xero
itself refuses the number, "Invoice # must be unique."). Now a push that lost its answer is kept in history, and its
retry (the same key), or a push taking over a dead request's claim, first looks in the ledger by number and links the
invoice made the first time when it is ours beyond doubt; otherwise it creates as before. A push with no such record
asks the ledger nothing more. Through HTTP, against the sandbox ledger."""
from datetime import timedelta
from decimal import Decimal

import pytest
from sqlalchemy import func, select, update

from chalicelib.areas.invoices.models import Invoice
from chalicelib.core.errors import GatewayTimeout, ServiceUnavailable
from chalicelib.core.ids import utcnow
from chalicelib.core.models import HistoryEntry
from chalicelib.providers.ledger.models import LedgerSandboxInvoice
from chalicelib.providers.ledger.sandbox import SandboxLedger
from tests.areas.invoices.test_push_idempotency import _ledger_rows, push


def _local(db, invoice):
    db.expire_all()
    stored = db.get(Invoice, invoice.id)
    return stored.status, stored.ledger_invoice_id, stored.ledger_status, stored.ledger_move_since


def _history(db, invoice, action):
    return list(db.scalars(select(HistoryEntry.changes).where(
        HistoryEntry.entity_type == "invoice", HistoryEntry.entity_id == invoice.id, HistoryEntry.action == action)
        .order_by(HistoryEntry.created_at)))


def _forgotten(db, row):
    """The ledger invoice made 7 minutes ago: Xero (and the sandbox) no longer replays its key."""
    db.execute(update(LedgerSandboxInvoice).where(LedgerSandboxInvoice.id == row.id)
               .values(created_at=row.created_at - timedelta(minutes=7)))
    db.flush()


def _made_and_forgotten(api, db, user, invoice, lost):
    """A push whose create answer was lost (504; the ledger made the invoice), past the 6 minutes the ledger keeps
    its key: answers the ledger invoice the push made."""
    lost()
    assert push(api, user, invoice).status == 504
    [made] = _ledger_rows(db, invoice)
    lost.undo()
    _forgotten(db, made)
    return made


@pytest.fixture
def looks(monkeypatch):
    """The numbers the push looked for in the ledger (`find_invoices`, still answered by the sandbox)."""
    asked, real = [], getattr(SandboxLedger, "find_invoices", None)  # (none before session 32)

    def find(self, number):
        asked.append(number)
        return real(self, number)

    monkeypatch.setattr(SandboxLedger, "find_invoices", find, raising=False)
    return asked


@pytest.fixture
def lost(monkeypatch):
    """The ledger's create answer is lost (504): `made` (default) once the ledger made the invoice, else before."""
    real = SandboxLedger.create_invoice

    def patch(*, made=True):
        def lost_answer(self, invoice, **kwargs):
            if made:
                real(self, invoice, **kwargs)
            raise GatewayTimeout("The accounting ledger did not answer in time")

        monkeypatch.setattr(SandboxLedger, "create_invoice", lost_answer)

    patch.undo = lambda: monkeypatch.setattr(SandboxLedger, "create_invoice", real)
    return patch


def test_a_push_retried_after_the_key_was_forgotten_links_the_invoice_made_the_first_time(api, db, exec_user, ready,
                                                                                         lost, looks):
    made = _made_and_forgotten(api, db, exec_user, ready, lost)
    retried = push(api, exec_user, ready)
    assert retried.status == 200, retried
    assert [row.id for row in _ledger_rows(db, ready)] == [made.id]  # no second ledger invoice
    assert retried.json["ledger_invoice_id"] == made.id
    [note] = _history(db, ready, "ledger_push_unanswered")  # the lost answer was kept
    assert note["error"] == "The accounting ledger did not answer in time" and note["idempotency_key"]
    assert _local(db, ready) == ("finalised", made.id, "DRAFT", None)
    assert looks == [ready.invoice_number]
    [pushed] = _history(db, ready, "pushed_to_ledger")
    assert pushed == {"ledger_invoice_id": made.id, "status": {"from": "draft", "to": "finalised"},
                      "found_in_ledger": True}


def test_a_push_that_took_over_a_dead_requests_claim_links_the_invoice_it_made(api, db, exec_user, ready, looks):
    """The function was killed once the ledger had made the invoice: its claim stayed (nothing recorded), and a push
    takes it over only after STALE_CLAIM (10 minutes), past the key's 6."""
    made = SandboxLedger(db=db).create_invoice(
        {"invoice_number": ready.invoice_number, "contact_name": "Acme Pty", "currency": "AUD",
         "lines": [{"description": "Design", "quantity": Decimal("2"), "unit_amount": Decimal("500")}]},
        idempotency_key="the-dead-push")["ledger_invoice_id"]
    [row] = _ledger_rows(db, ready)
    _forgotten(db, row)
    db.execute(update(Invoice).where(Invoice.id == ready.id).values(ledger_move_since=utcnow() - timedelta(minutes=11)))
    db.flush()
    answer = push(api, exec_user, ready)
    assert answer.status == 200, answer
    assert answer.json["ledger_invoice_id"] == made
    assert [row.id for row in _ledger_rows(db, ready)] == [made]
    assert _local(db, ready) == ("finalised", made, "DRAFT", None)


def test_a_retry_that_finds_nothing_creates_as_before(api, db, exec_user, ready, lost, looks):
    lost(made=False)  # the ledger never got the create
    assert push(api, exec_user, ready).status == 504
    assert _ledger_rows(db, ready) == []
    lost.undo()
    retried = push(api, exec_user, ready)
    assert retried.status == 200, retried
    [row] = _ledger_rows(db, ready)
    assert retried.json["ledger_invoice_id"] == row.id and looks == [ready.invoice_number]
    assert "found_in_ledger" not in _history(db, ready, "pushed_to_ledger")[0]


@pytest.mark.parametrize("theirs", [{"contact_name": "Other Co"}, {"status": "VOIDED"}, {"status": "DELETED"},
                                    {"total": Decimal("990.00")}, {"currency": "NZD"}],
                         ids=["another contact", "voided", "deleted", "another total", "another currency"])
def test_an_invoice_found_that_is_not_ours_beyond_doubt_is_not_taken(api, db, exec_user, ready, lost, theirs):
    made = _made_and_forgotten(api, db, exec_user, ready, lost)
    db.execute(update(LedgerSandboxInvoice).where(LedgerSandboxInvoice.id == made.id).values(**theirs))
    retried = push(api, exec_user, ready)
    assert retried.status == 200, retried
    rows = _ledger_rows(db, ready)
    assert [row.id for row in rows][0] == made.id and len(rows) == 2  # created as before
    assert retried.json["ledger_invoice_id"] == rows[1].id


def test_two_invoices_that_could_be_ours_are_neither_taken(api, db, exec_user, ready, lost):
    lost()
    assert push(api, exec_user, ready).status == 504
    [made] = _ledger_rows(db, ready)
    lost.undo()
    SandboxLedger(db=db).create_invoice(  # made another way (no app's push): the same number, contact and money
        {"invoice_number": ready.invoice_number, "contact_name": "Acme Pty", "currency": "AUD",
         "lines": [{"description": "Design", "quantity": Decimal("2"), "unit_amount": Decimal("500")}]})
    _forgotten(db, made)
    retried = push(api, exec_user, ready)
    assert retried.status == 200, retried
    assert len(_ledger_rows(db, ready)) == 3  # doubt: created as before


def test_a_first_push_and_a_push_after_a_rate_limit_do_not_look(api, db, exec_user, ready, looks, monkeypatch):
    real = SandboxLedger.create_invoice

    def rate_limited(self, invoice, **kwargs):
        raise ServiceUnavailable("The accounting ledger is rate limiting requests")

    monkeypatch.setattr(SandboxLedger, "create_invoice", rate_limited)
    assert push(api, exec_user, ready).status == 503  # the ledger made nothing: no record
    monkeypatch.setattr(SandboxLedger, "create_invoice", real)
    assert push(api, exec_user, ready).status == 200
    assert looks == []
    assert db.scalar(select(func.count()).select_from(HistoryEntry).where(
        HistoryEntry.entity_id == ready.id, HistoryEntry.action == "ledger_push_unanswered")) == 0


def test_a_retry_whose_look_fails_creates_nothing_and_looks_again(api, db, exec_user, ready, lost, monkeypatch):
    """The look is the retry's safety: when the ledger fails it, nothing is created (the ledger's error answered,
    the record kept), and the next retry looks again."""
    made = _made_and_forgotten(api, db, exec_user, ready, lost)
    real = SandboxLedger.find_invoices

    def look_times_out(self, number):
        raise GatewayTimeout("The accounting ledger did not answer in time")

    monkeypatch.setattr(SandboxLedger, "find_invoices", look_times_out)
    assert push(api, exec_user, ready).status == 504
    assert [row.id for row in _ledger_rows(db, ready)] == [made.id]
    assert len(_history(db, ready, "ledger_push_unanswered")) == 1  # the look's failure is no create's
    monkeypatch.setattr(SandboxLedger, "find_invoices", real)
    retried = push(api, exec_user, ready)
    assert retried.status == 200 and retried.json["ledger_invoice_id"] == made.id, retried


def test_an_invoice_found_that_another_invoice_here_is_linked_to_is_not_taken(api, db, exec_user, ready, lost):
    from tests.areas.invoices.factories import make_invoice

    made = _made_and_forgotten(api, db, exec_user, ready, lost)
    make_invoice(db, ledger_invoice_id=made.id)  # linked by hand to another invoice meanwhile
    retried = push(api, exec_user, ready)
    assert retried.status == 200, retried
    rows = _ledger_rows(db, ready)
    assert len(rows) == 2 and retried.json["ledger_invoice_id"] == rows[1].id


def test_an_invoice_found_for_an_invoice_voided_meanwhile_is_left_in_the_ledger(api, db, exec_user, ready, lost,
                                                                                 monkeypatch):
    """The found invoice was made by the lost push, not by this request: the 409 of the change undoes nothing."""
    made = _made_and_forgotten(api, db, exec_user, ready, lost)
    real = SandboxLedger.find_invoices

    def voided_meanwhile(self, number):
        found = real(self, number)
        db.execute(update(Invoice).where(Invoice.id == ready.id).values(status="voided"))  # an update voided it
        return found

    monkeypatch.setattr(SandboxLedger, "find_invoices", voided_meanwhile)
    answer = push(api, exec_user, ready)
    assert answer.status == 409, answer
    assert [(row.id, row.status) for row in _ledger_rows(db, ready)] == [(made.id, "DRAFT")]
    assert _local(db, ready) == ("voided", None, None, None)
