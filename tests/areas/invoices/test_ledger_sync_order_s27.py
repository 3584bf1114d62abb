"""Session 27 (replay27 audit): a ledger sync must not undo a ledger move, nor a newer read, made while it read the
ledger. Every sync (the batch, the single sync, the detail's live read) asks the ledger with no transaction open,
then locks the invoice and writes what it read: a void or approve written meanwhile (`ledger_moved_at` since the
ask) or under way (its claim, `ledger_move_since`, held) keeps its ledger status and status; a newer read stored
meanwhile (`ledger_synced_at`, the ask time of the answer written, later than this ask) keeps its amounts and
payments. docs/decisions/invoices.md, session 27."""
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select, update

from chalicelib.areas.invoices.models import Invoice, InvoicePayment
from chalicelib.areas.invoices.service_ledger import STALE_CLAIM
from chalicelib.core.ids import utcnow
from chalicelib.providers.ledger.sandbox import SandboxLedger, record_payment
from tests.areas.invoices.test_ledger_sync_races import (
    _pushed,
    _while_the_ledger_answers,
)


def _once(change):
    """`change`, the first time the ledger answers only (a request it makes reads the ledger too)."""
    done = []

    def first():
        if not done:
            done.append(True)
            change()
    return first


def _posted_meanwhile(api, monkeypatch, user, path) -> list:
    """`path` posted by `user` the first time the ledger answers (`_once`): the list its answer is added to."""
    moved = []
    _while_the_ledger_answers(monkeypatch, _once(lambda: moved.append(api.post(path, as_=user))))
    return moved


def _stored(db, invoice_id):
    db.expire_all()
    row = db.get(Invoice, invoice_id)
    return row.status, row.ledger_status


def test_a_void_made_while_the_batch_read_the_ledger_is_overwritten_by_the_older_answer(api, db, exec_user, monkeypatch):
    """The audit's replay (scratch_replay27): the batch read AUTHORISED, a void was written meanwhile, the batch
    wrote AUTHORISED over it and never read the voided invoice again (the batch leaves voided invoices out)."""
    moved = {}
    invoice, _ = _pushed(api, db, exec_user, approve=True)

    def void_meanwhile():
        if moved:
            return
        moved["answer"] = api.post(f"/api/invoices/{invoice.id}/ledger-void", as_=exec_user)

    _while_the_ledger_answers(monkeypatch, void_meanwhile)
    answer = api.post("/api/invoices/sync-ledger", as_=exec_user)
    assert answer.status == 200, answer
    assert moved["answer"].status == 200, moved["answer"]
    db.expire_all()
    row = db.get(Invoice, invoice.id)
    monkeypatch.undo()
    # the batch excludes voided invoices from now on: what it wrote stays
    assert api.post("/api/invoices/sync-ledger", as_=exec_user).status == 200
    db.expire_all()
    row = db.get(Invoice, invoice.id)
    assert (row.status, row.ledger_status) == ("voided", "VOIDED"), (row.status, row.ledger_status)


def test_an_approve_made_while_the_batch_read_the_ledger_keeps_authorised(api, db, exec_user, monkeypatch):
    invoice, _ = _pushed(api, db, exec_user)  # a ledger DRAFT
    moved = _posted_meanwhile(api, monkeypatch, exec_user, f"/api/invoices/{invoice.id}/ledger-approve")
    answer = api.post("/api/invoices/sync-ledger", as_=exec_user)
    assert answer.status == 200 and moved[0].status == 200, (answer, moved)
    assert _stored(db, invoice.id) == ("approved", "AUTHORISED")
    monkeypatch.undo()
    # the next read of the ledger agrees: nothing to change
    assert api.post("/api/invoices/sync-ledger", as_=exec_user).json["updated"] == 0
    assert _stored(db, invoice.id) == ("approved", "AUTHORISED")


def test_a_void_made_while_the_single_sync_read_the_ledger_is_kept(api, db, exec_user, monkeypatch):
    invoice, _ = _pushed(api, db, exec_user, approve=True)
    moved = _posted_meanwhile(api, monkeypatch, exec_user, f"/api/invoices/{invoice.id}/ledger-void")
    answer = api.post(f"/api/invoices/{invoice.id}/sync-ledger", as_=exec_user)
    assert answer.status == 200 and moved[0].status == 200, (answer, moved)
    assert (answer.json["invoice"]["status"], answer.json["ledger_status"]) == ("voided", "VOIDED"), answer.json
    assert _stored(db, invoice.id) == ("voided", "VOIDED")


def test_a_void_made_while_the_detail_read_the_ledger_is_kept(api, db, exec_user, monkeypatch):
    invoice, _ = _pushed(api, db, exec_user, approve=True)
    moved = _posted_meanwhile(api, monkeypatch, exec_user, f"/api/invoices/{invoice.id}/ledger-void")
    answer = api.get(f"/api/invoices/{invoice.id}", as_=exec_user)
    assert answer.status == 200 and moved[0].status == 200, (answer, moved)
    assert (answer.json["invoice"]["status"], answer.json["invoice"]["ledger_status"]) == ("voided", "VOIDED")
    assert _stored(db, invoice.id) == ("voided", "VOIDED")


def test_an_older_answer_does_not_undo_the_payments_a_newer_read_stored(api, db, exec_user, monkeypatch):
    """The batch asked first (unpaid); the customer paid and a single sync read and stored it while the batch's
    answer travelled: the batch's older answer writes neither `unpaid` nor the payments' removal."""
    invoice, ledger_id = _pushed(api, db, exec_user, approve=True)
    newer = []

    def paid_and_read_meanwhile():
        record_payment(db, ledger_id, "1100.00", on=date(2026, 4, 2), reference="EFT 1")
        newer.append(api.post(f"/api/invoices/{invoice.id}/sync-ledger", as_=exec_user))

    _while_the_ledger_answers(monkeypatch, _once(paid_and_read_meanwhile))
    answer = api.post("/api/invoices/sync-ledger", as_=exec_user)
    assert answer.status == 200 and newer[0].status == 200, (answer, newer)
    assert newer[0].json["payment_status"] == "paid", newer[0].json
    db.expire_all()
    row = db.get(Invoice, invoice.id)
    assert (row.status, row.ledger_status, row.payment_status, row.amount_paid) == (
        "paid", "PAID", "paid", Decimal("1100.00"))
    assert db.scalars(select(InvoicePayment.reference).where(InvoicePayment.invoice_id == invoice.id)).all() == [
        "EFT 1"]


def _held_while_the_ledger_moved(db, invoice_id, ledger_id, status, since):
    """A move under way: its claim held (since `since`) and its ledger call made (to `status`), its write not yet."""
    db.execute(update(Invoice).where(Invoice.id == invoice_id).values(ledger_move_since=since))
    SandboxLedger(db=db).set_status(ledger_id, status)
    db.flush()


def test_a_move_under_way_keeps_the_ledger_status_its_claim_will_write(api, db, exec_user):
    invoice, ledger_id = _pushed(api, db, exec_user)  # a ledger DRAFT, `finalised`
    _held_while_the_ledger_moved(db, invoice.id, ledger_id, "AUTHORISED", utcnow())  # an approve under way
    record_payment(db, ledger_id, "100.00", on=date(2026, 4, 2), reference="EFT 1")  # paid at once
    answer = api.post(f"/api/invoices/{invoice.id}/sync-ledger", as_=exec_user)
    assert answer.status == 200, answer
    db.expire_all()
    row = db.get(Invoice, invoice.id)
    # the move writes its own outcome; the amounts and payments, which no move writes, are the ledger's
    assert (row.status, row.ledger_status, row.payment_status, row.amount_paid) == (
        "finalised", "DRAFT", "partially_paid", Decimal("100.00"))
    assert db.scalars(select(InvoicePayment.reference).where(InvoicePayment.invoice_id == invoice.id)).all() == [
        "EFT 1"]


def test_a_dead_requests_claim_does_not_keep_the_ledger_status(api, db, exec_user):
    invoice, ledger_id = _pushed(api, db, exec_user, approve=True)
    _held_while_the_ledger_moved(db, invoice.id, ledger_id, "VOIDED", utcnow() - STALE_CLAIM - timedelta(seconds=1))
    answer = api.post(f"/api/invoices/{invoice.id}/sync-ledger", as_=exec_user)
    assert answer.status == 200, answer
    assert _stored(db, invoice.id) == ("voided", "VOIDED")  # the ledger's: the claim is a dead request's


def test_a_move_written_before_the_sync_asked_is_read_back(api, db, exec_user):
    """A move long done is no reason to keep a ledger status: the ledger changed since (voided there) is written."""
    invoice, ledger_id = _pushed(api, db, exec_user, approve=True)
    SandboxLedger(db=db).set_status(ledger_id, "VOIDED")
    db.flush()
    answer = api.post("/api/invoices/sync-ledger", as_=exec_user)
    assert answer.status == 200 and answer.json["updated"] == 1, answer
    assert _stored(db, invoice.id) == ("voided", "VOIDED")
