"""The ledger syncs that write without the invoice's row lock held while the ledger answers (the detail's live
read and the batch): what they write is computed from the invoice as it is once the ledger has answered, not
as it was read before (a status changed meanwhile is kept, an invoice deleted meanwhile is left out)."""
from datetime import date
from decimal import Decimal

from sqlalchemy import delete, update

from chalicelib.areas.invoices.models import Invoice, InvoicePayment
from chalicelib.providers.ledger.sandbox import SandboxLedger, record_payment
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item


def _pushed(api, db, user, *, approve=False):
    invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, due_date=date(2026, 4, 1))
    make_invoice_item(db, invoice, description="Design", quantity=Decimal("2"), unit_price=Decimal("500"))
    invoice.subtotal, invoice.tax, invoice.total = Decimal("1000"), Decimal("100"), Decimal("1100")
    db.flush()
    ledger_id = api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=user).json["ledger_invoice_id"]
    if approve:
        assert api.post(f"/api/invoices/{invoice.id}/ledger-approve", as_=user).status == 200
    return invoice, ledger_id


def _while_the_ledger_answers(monkeypatch, change):
    get_invoices = SandboxLedger.get_invoices

    def racing_get_invoices(self, ledger_invoice_ids):
        answer = get_invoices(self, ledger_invoice_ids)
        change()  # another request, while no transaction of ours is open
        return answer

    monkeypatch.setattr(SandboxLedger, "get_invoices", racing_get_invoices)


def test_a_status_set_while_the_batch_read_the_ledger_is_kept(api, db, exec_user, monkeypatch):
    invoice, _ = _pushed(api, db, exec_user, approve=True)
    _while_the_ledger_answers(monkeypatch, lambda: db.execute(
        update(Invoice).where(Invoice.id == invoice.id).values(status="sent")))
    answer = api.post("/api/invoices/sync-ledger", as_=exec_user)
    assert answer.status == 200, answer
    db.expire_all()
    assert db.get(Invoice, invoice.id).status == "sent"  # the ledger (AUTHORISED) says nothing of it


def test_an_invoice_deleted_while_the_batch_read_the_ledger_is_left_out(api, db, exec_user, monkeypatch):
    gone, gone_ledger_id = _pushed(api, db, exec_user, approve=True)
    kept, kept_ledger_id = _pushed(api, db, exec_user, approve=True)
    record_payment(db, gone_ledger_id, "100.00", on=date(2026, 4, 2))
    record_payment(db, kept_ledger_id, "1100.00", on=date(2026, 4, 2))
    _while_the_ledger_answers(monkeypatch, lambda: db.execute(delete(Invoice).where(Invoice.id == gone.id)))
    answer = api.post("/api/invoices/sync-ledger", as_=exec_user)
    assert answer.status == 200, answer
    db.expire_all()
    assert db.get(Invoice, gone.id) is None and db.get(Invoice, kept.id).status == "paid"
    assert [p.invoice_id for p in db.query(InvoicePayment).filter(
        InvoicePayment.invoice_id.in_([gone.id, kept.id]))] == [kept.id]


def test_an_invoice_deleted_while_its_detail_read_the_ledger_is_a_404(api, db, exec_user, monkeypatch):
    invoice, ledger_id = _pushed(api, db, exec_user, approve=True)
    record_payment(db, ledger_id, "100.00", on=date(2026, 4, 2))
    _while_the_ledger_answers(monkeypatch, lambda: db.execute(delete(Invoice).where(Invoice.id == invoice.id)))
    answer = api.get(f"/api/invoices/{invoice.id}", as_=exec_user)
    assert answer.status == 404, answer


def test_a_status_set_while_the_detail_read_the_ledger_is_kept(api, db, exec_user, monkeypatch):
    invoice, _ = _pushed(api, db, exec_user, approve=True)
    _while_the_ledger_answers(monkeypatch, lambda: db.execute(
        update(Invoice).where(Invoice.id == invoice.id).values(status="sent")))
    answer = api.get(f"/api/invoices/{invoice.id}", as_=exec_user)
    assert answer.status == 200, answer
    assert answer.json["invoice"]["status"] == "sent"
