"""The scheduled job ledger-invoice-sync through the Lambda handler and the CLI, against the sandbox ledger:
run twice, one effect (developers' guide, scheduled jobs). The second run changes no invoice and keeps the
payment records as they are (same ids); only the run itself is recorded again (invoice_ledger_sync_runs)."""
import json
from datetime import date
from decimal import Decimal

from sqlalchemy import func, select

from chalicelib.areas.invoices.models import Invoice, InvoicePayment, LedgerSyncRun
from chalicelib.core.models import HistoryEntry
from chalicelib.providers.ledger.sandbox import record_payment
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item


def _seed(api, db, user):
    """An invoice pushed to the ledger and approved, then paid in part there; and a linked invoice the ledger
    does not hold."""
    invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, due_date=date(2026, 4, 1))
    make_invoice_item(db, invoice, description="Design", quantity=Decimal("2"), unit_price=Decimal("500"),
                      ledger_account_code="200")
    invoice.subtotal, invoice.tax, invoice.total = Decimal("1000"), Decimal("100"), Decimal("1100")
    db.flush()
    for move in ("push-to-ledger", "ledger-approve"):
        answer = api.post(f"/api/invoices/{invoice.id}/{move}", as_=user)
        assert answer.status == 200, (move, answer)
    db.expire_all()
    ledger_id = db.get(Invoice, invoice.id).ledger_invoice_id
    record_payment(db, ledger_id, "400.00", on=date(2026, 4, 2), reference="EFT 1")
    record_payment(db, ledger_id, "100.00", on=date(2026, 4, 3), reference="EFT 2")
    gone = make_invoice(db, status="sent", ledger_invoice_id="00000000-0000-0000-0000-00000000dead")
    return invoice.id, gone


def _state(db, invoice_id):
    db.expire_all()
    invoice = db.get(Invoice, invoice_id)
    payments = db.execute(select(InvoicePayment.id, InvoicePayment.ledger_payment_id, InvoicePayment.amount,
                                 InvoicePayment.reference, InvoicePayment.created_at)
                          .where(InvoicePayment.invoice_id == invoice_id).order_by(InvoicePayment.reference)).all()
    synced = db.scalar(select(func.count()).select_from(HistoryEntry).where(
        HistoryEntry.entity_id == invoice_id, HistoryEntry.action == "ledger_synced"))
    return ((invoice.status, invoice.ledger_status, invoice.payment_status, invoice.amount_paid, invoice.amount_due),
            payments, synced)


def _assert_first(db, invoice_id):
    state = _state(db, invoice_id)
    fields, payments, synced = state
    assert fields == ("approved", "AUTHORISED", "partially_paid", Decimal("500.00"), Decimal("600.00"))
    assert [(p.amount, p.reference) for p in payments] == [(Decimal("400.00"), "EFT 1"), (Decimal("100.00"), "EFT 2")]
    assert synced == 1
    return state


def _assert_answer(answer, gone, updated):
    assert answer["updated"] == updated and answer["synced_at"].endswith("Z")
    assert answer["errors"] == [{"invoice_id": gone.id, "invoice_number": gone.invoice_number,
                                 "error": "not found in the ledger"}]


def _runs(db):
    return [(run.trigger, run.updated) for run in db.scalars(select(LedgerSyncRun).order_by(LedgerSyncRun.started_at))]


def test_ledger_invoice_sync_through_the_scheduled_handler(api, db, client, exec_user):
    invoice_id, gone = _seed(api, db, exec_user)
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    _assert_answer(client.lambda_.invoke("ledger_invoice_sync", event).payload, gone, 1)
    first = _assert_first(db, invoice_id)
    _assert_answer(client.lambda_.invoke("ledger_invoice_sync", event).payload, gone, 0)
    assert _state(db, invoice_id) == first  # the payments kept, not replaced by copies
    assert _runs(db) == [("schedule", 1), ("schedule", 0)]  # each run is recorded
    detail = api.get(f"/api/invoices/{invoice_id}", as_=exec_user).json  # its live read changes nothing either
    assert sorted(p["id"] for p in detail["payments"]) == sorted(p.id for p in first[1])
    assert _state(db, invoice_id) == first


def test_ledger_invoice_sync_through_the_cli(api, db, exec_user, capsys):
    from chalicelib import cli

    invoice_id, gone = _seed(api, db, exec_user)
    assert cli.main(["job", "ledger-invoice-sync"]) == 0
    _assert_answer(json.loads(capsys.readouterr().out), gone, 1)
    first = _assert_first(db, invoice_id)
    assert cli.main(["job", "ledger-invoice-sync"]) == 0
    _assert_answer(json.loads(capsys.readouterr().out), gone, 0)
    assert _state(db, invoice_id) == first
    assert _runs(db) == [("schedule", 1), ("schedule", 0)]


def test_a_new_ledger_payment_is_added_and_the_known_ones_kept(api, db, exec_user):
    """The sync's payment records follow the ledger's: a payment made there since is added, the ones already
    recorded keep their ids (also through the detail's live read)."""
    invoice_id, _ = _seed(api, db, exec_user)
    first = api.post("/api/invoices/sync-ledger", as_=exec_user)
    assert first.status == 200 and first.json["updated"] == 1
    before = api.get(f"/api/invoices/{invoice_id}", as_=exec_user).json["payments"]
    record_payment(db, db.get(Invoice, invoice_id).ledger_invoice_id, "600.00", on=date(2026, 4, 4), reference="EFT 3")
    after = api.get(f"/api/invoices/{invoice_id}", as_=exec_user).json
    assert after["invoice"]["payment_status"] == "paid" and after["invoice"]["status"] == "paid"
    assert [p["reference"] for p in after["payments"]] == ["EFT 1", "EFT 2", "EFT 3"]
    assert [(p["id"], p["created_at"]) for p in after["payments"][:2]] == [(p["id"], p["created_at"]) for p in before]
    assert api.post("/api/invoices/sync-ledger", as_=exec_user).json["updated"] == 0
    assert api.get(f"/api/invoices/{invoice_id}", as_=exec_user).json["payments"] == after["payments"]


def test_a_changed_ledger_payment_is_updated_in_place_and_a_removed_one_deleted(api, db, exec_user):
    """A payment the ledger changed keeps its record (id) with the ledger's values; one the ledger no longer
    answers is deleted."""
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice

    invoice_id, _ = _seed(api, db, exec_user)
    assert api.post("/api/invoices/sync-ledger", as_=exec_user).json["updated"] == 1
    before = {p["reference"]: p for p in api.get(f"/api/invoices/{invoice_id}", as_=exec_user).json["payments"]}
    row = db.get(LedgerSandboxInvoice, db.get(Invoice, invoice_id).ledger_invoice_id)
    first = next(p for p in row.payments if p["reference"] == "EFT 1")
    row.payments = [{**first, "reference": "EFT 1 (corrected)", "amount": "450.00"}]  # EFT 2 reversed there
    row.amount_paid = Decimal("450.00")
    db.flush()
    assert api.post("/api/invoices/sync-ledger", as_=exec_user).json["updated"] == 1
    (payment,) = api.get(f"/api/invoices/{invoice_id}", as_=exec_user).json["payments"]
    assert (payment["id"], payment["amount"], payment["reference"]) == (before["EFT 1"]["id"], 450.0,
                                                                         "EFT 1 (corrected)")
    assert db.get(InvoicePayment, before["EFT 2"]["id"]) is None
