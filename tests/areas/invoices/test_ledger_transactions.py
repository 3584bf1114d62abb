"""The ledger calls and the request's transaction (definition of done: "one request, one transaction", provider
calls outside it): no ledger call runs while a row lock is held, and a ledger that refuses a move leaves the
invoice as it was (502, nothing written)."""
from datetime import date

from sqlalchemy import func, select, update

from chalicelib.areas.invoices.models import Invoice
from chalicelib.core.models import HistoryEntry
from chalicelib.providers.ledger.models import LedgerSandboxInvoice
from chalicelib.providers.ledger.sandbox import SandboxLedger, record_payment
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item, ready_invoice
from tests.factories import app_in_transaction


def _history(db, invoice_id):
    return db.scalar(select(func.count()).select_from(HistoryEntry)
                     .where(HistoryEntry.entity_type == "invoice", HistoryEntry.entity_id == invoice_id))


def test_a_push_that_lost_a_race_undoes_its_ledger_invoice_holding_no_lock(api, db, exec_user, monkeypatch):
    """Another push linked the invoice while ours was in the ledger: ours is deleted there (the invoice's row
    lock is given back first, so the second ledger call blocks nobody) and the answer is 409."""
    invoice = ready_invoice(db)
    create, set_status = SandboxLedger.create_invoice, SandboxLedger.set_status
    made, undo_in_transaction = [], []

    def racing_create(self, payload, **kwargs):
        answer = create(self, payload, **kwargs)
        made.append(answer["ledger_invoice_id"])
        db.execute(update(Invoice).where(Invoice.id == invoice.id).values(ledger_invoice_id="the-other-push"))
        return answer

    def watched_set_status(self, ledger_invoice_id, status, **kwargs):
        undo_in_transaction.append(app_in_transaction(db))
        return set_status(self, ledger_invoice_id, status, **kwargs)

    monkeypatch.setattr(SandboxLedger, "create_invoice", racing_create)
    monkeypatch.setattr(SandboxLedger, "set_status", watched_set_status)
    answer = api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=exec_user)
    assert answer.status == 409, answer
    assert undo_in_transaction == [False]
    db.expire_all()
    assert db.get(LedgerSandboxInvoice, made[0]).status == "DELETED"  # the ledger keeps the undo, as a real one would
    assert db.get(Invoice, invoice.id).ledger_invoice_id != made[0]


def test_a_refused_void_writes_nothing(api, db, exec_user):
    invoice = ready_invoice(db)
    ledger_id = api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=exec_user).json["ledger_invoice_id"]
    assert api.post(f"/api/invoices/{invoice.id}/ledger-approve", as_=exec_user).status == 200
    record_payment(db, ledger_id, "100.00", on=date(2026, 4, 2))  # still AUTHORISED, but the ledger will not void it
    before = _history(db, invoice.id)
    answer = api.post(f"/api/invoices/{invoice.id}/ledger-void", as_=exec_user)
    assert answer.status == 502 and "payments" in answer.json["error"]
    db.expire_all()
    stored = db.get(Invoice, invoice.id)
    assert (stored.status, stored.ledger_status, stored.ledger_invoice_id) == ("approved", "AUTHORISED", ledger_id)
    assert _history(db, invoice.id) == before
    assert db.get(LedgerSandboxInvoice, ledger_id).status == "AUTHORISED"


def test_a_delete_the_ledger_refuses_keeps_the_invoice(api, db, exec_user):
    invoice = ready_invoice(db)
    ledger_id = api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=exec_user).json["ledger_invoice_id"]
    api.post(f"/api/invoices/{invoice.id}/ledger-approve", as_=exec_user)
    record_payment(db, ledger_id, "100.00", on=date(2026, 4, 2))
    before = _history(db, invoice.id)
    answer = api.delete(f"/api/invoices/{invoice.id}", as_=exec_user)
    assert answer.status == 502, answer
    db.expire_all()
    assert db.get(Invoice, invoice.id) is not None and _history(db, invoice.id) == before


def test_a_failed_push_writes_nothing(api, db, exec_user):
    invoice = make_invoice(db, company_id=make_company(db, name="An invalid contact").id)
    make_invoice_item(db, invoice)
    answer = api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=exec_user)
    assert answer.status == 502
    db.expire_all()
    stored = db.get(Invoice, invoice.id)
    assert (stored.status, stored.ledger_invoice_id, stored.ledger_status) == ("draft", None, None)
    assert _history(db, invoice.id) == 0
    assert db.scalar(select(func.count()).select_from(LedgerSandboxInvoice)
                     .where(LedgerSandboxInvoice.invoice_number == invoice.invoice_number)) == 0


def test_an_invoice_deleted_while_the_ledger_moved_it_is_a_409_not_a_500(api, db, exec_user, monkeypatch):
    from sqlalchemy import delete

    invoice = ready_invoice(db)
    ledger_id = api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=exec_user).json["ledger_invoice_id"]
    set_status = SandboxLedger.set_status

    def racing_set_status(self, ledger_invoice_id, status, **kwargs):
        answer = set_status(self, ledger_invoice_id, status, **kwargs)
        db.execute(delete(Invoice).where(Invoice.id == invoice.id))  # a concurrent delete
        return answer

    monkeypatch.setattr(SandboxLedger, "set_status", racing_set_status)
    answer = api.post(f"/api/invoices/{invoice.id}/ledger-approve", as_=exec_user)
    assert answer.status == 409, answer
    db.expire_all()
    assert db.get(LedgerSandboxInvoice, ledger_id).status == "AUTHORISED"  # the ledger keeps its move


def test_an_invoice_deleted_while_the_ledger_was_read_for_a_sync_is_a_404_not_a_500(api, db, exec_user, monkeypatch):
    from sqlalchemy import delete

    invoice = ready_invoice(db)
    api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=exec_user)
    get_invoices = SandboxLedger.get_invoices

    def racing_get_invoices(self, ledger_invoice_ids):
        answer = get_invoices(self, ledger_invoice_ids)
        db.execute(delete(Invoice).where(Invoice.id == invoice.id))  # a concurrent delete
        return answer

    monkeypatch.setattr(SandboxLedger, "get_invoices", racing_get_invoices)
    answer = api.post(f"/api/invoices/{invoice.id}/sync-ledger", as_=exec_user)
    assert answer.status == 404, answer
