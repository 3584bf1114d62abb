"""The scheduled job ledger-invoice-sync through the Lambda handler and the CLI, against the sandbox ledger:
run twice, one effect (developers' guide, scheduled jobs). The second run changes no invoice and keeps the
payment records as they are (same ids); only the run itself is recorded again (invoice_ledger_sync_runs). A page
the ledger refuses is split until the refused invoices are alone; a rate limit or a timeout stops the run."""
import json
from datetime import date
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from chalicelib.areas.invoices.models import Invoice, InvoicePayment, LedgerSyncRun
from chalicelib.core.models import HistoryEntry
from chalicelib.providers.ledger.sandbox import record_payment
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item
from tests.areas.invoices.test_ledger_reads_s26 import ledger_read_long_ago


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
    ledger_read_long_ago(db)  # past the detail's window (session 26)
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
    ledger_read_long_ago(db)  # past the requested sync's cooldown (session 26)
    assert api.post("/api/invoices/sync-ledger", as_=exec_user).json["updated"] == 1
    (payment,) = api.get(f"/api/invoices/{invoice_id}", as_=exec_user).json["payments"]
    assert (payment["id"], payment["amount"], payment["reference"]) == (before["EFT 1"]["id"], 450.0,
                                                                         "EFT 1 (corrected)")
    assert db.get(InvoicePayment, before["EFT 2"]["id"]) is None


# ---- a page the ledger refuses (poison-pill audit): pages of 2 invoices here (LIST_LIMIT patched)

REFUSED = "The accounting ledger refused the request: A validation exception occurred"


def _paid_in_ledger(db, count):
    """`count` invoices linked to ledger invoices paid there, in id order (the order of the sync's pages)."""
    import uuid

    from chalicelib.providers.ledger.models import LedgerSandboxInvoice

    company, made = make_company(db, name="Acme Pty"), []
    for _ in range(count):
        ledger_id = str(uuid.uuid4())
        db.add(LedgerSandboxInvoice(id=ledger_id, invoice_number=f"L-{ledger_id[:8]}", contact_name="Acme Pty",
                                    status="PAID", currency="AUD", total=Decimal("110.00"),
                                    amount_paid=Decimal("110.00"), lines=[], payments=[], pdf=b"%PDF"))
        made.append(make_invoice(db, company_id=company.id, status="approved", ledger_invoice_id=ledger_id,
                                 total=Decimal("110.00"), due_date=date(2030, 1, 1)))
    db.flush()
    return sorted(made, key=lambda invoice: invoice.id)


def _ledger_failing(monkeypatch, failing: dict, page=2):
    """The sandbox ledger raising `failing[ledger id]` for any call whose ids hold that ledger id (as Xero refuses a
    whole GET /Invoices?IDs=... for one id it rejects); answers the list of the ids of each call."""
    from chalicelib.areas.invoices import service_ledger_sync
    from chalicelib.providers.ledger.sandbox import SandboxLedger

    monkeypatch.setattr(service_ledger_sync, "LIST_LIMIT", page)
    original, calls = SandboxLedger.get_invoices, []

    def get_invoices(self, ledger_invoice_ids):
        calls.append(list(ledger_invoice_ids))
        for ledger_id, error in failing.items():
            if ledger_id in ledger_invoice_ids:
                raise error()
        return original(self, ledger_invoice_ids)

    monkeypatch.setattr(SandboxLedger, "get_invoices", get_invoices)
    return calls


def _synced(db, invoices):
    db.expire_all()
    return [(db.get(Invoice, i.id).status, db.get(Invoice, i.id).ledger_synced_at is not None) for i in invoices]


def test_an_invoice_the_ledger_refuses_is_named_and_the_others_synced(db, aws, monkeypatch):
    """It was: the run recorded one error without invoice and stopped at the refused page, the first one every hour,
    so no invoice after it was synced again. The page is asked again in halves until the refused invoice is alone:
    it is one error naming it, every other invoice is synced, the later pages too; run twice, the same."""
    from chalicelib.areas.invoices.jobs import ledger_invoice_sync
    from chalicelib.core.errors import BadGateway

    invoices = _paid_in_ledger(db, 6)
    bad = invoices[0]  # the lowest id: in the first page of every run
    calls = _ledger_failing(monkeypatch, {bad.ledger_invoice_id: lambda: BadGateway(REFUSED)})
    refused = [{"invoice_id": bad.id, "invoice_number": bad.invoice_number, "error": REFUSED}]
    for run, updated in ((1, 5), (2, 0)):
        calls.clear()
        answer = ledger_invoice_sync()
        assert (answer["updated"], answer["errors"]) == (updated, refused), (run, answer)
        assert len(calls) == 5, calls  # 3 pages, and the refused one's 2 halves
        assert _synced(db, invoices) == [("approved", False)] + [("paid", True)] * 5, run
    assert [run.errors for run in db.scalars(select(LedgerSyncRun))] == [refused, refused]


def test_past_its_extra_calls_a_run_records_a_refused_part_as_not_synced(db, aws, monkeypatch):
    """The splitting is bounded (SPLIT_CALLS a run): a refused part left when they are spent is an error naming each
    of its invoices, not synced; the run goes on with the next page."""
    from chalicelib.areas.invoices import service_ledger_sync
    from chalicelib.areas.invoices.jobs import ledger_invoice_sync
    from chalicelib.core.errors import BadGateway

    invoices = _paid_in_ledger(db, 6)
    monkeypatch.setattr(service_ledger_sync, "SPLIT_CALLS", 2)
    calls = _ledger_failing(monkeypatch, {invoices[0].ledger_invoice_id: lambda: BadGateway(REFUSED),
                                          invoices[3].ledger_invoice_id: lambda: BadGateway(REFUSED)}, page=4)
    answer = ledger_invoice_sync()
    assert [(e["invoice_id"], e["error"].startswith("not synced: ") and e["error"].endswith(f"({REFUSED})"))
            for e in answer["errors"]] == [(i.id, True) for i in invoices[:4]], answer
    assert answer["updated"] == 2 and len(calls) == 4, calls  # the page, its 2 halves, the next page
    assert _synced(db, invoices) == [("approved", False)] * 4 + [("paid", True)] * 2


def _rate_limited():
    from chalicelib.providers.http import rate_limited

    return rate_limited("Xero", 30)


def _timed_out():
    from chalicelib.core.errors import GatewayTimeout

    return GatewayTimeout("Xero did not answer in time")


def _unreachable():
    import requests

    from chalicelib.core.errors import BadGateway

    error = BadGateway("Xero unreachable (ConnectionError)")  # as providers.http raises it: from the transport's
    error.__cause__ = requests.ConnectionError("refused")
    return error


@pytest.mark.parametrize("error", [_rate_limited, _timed_out, _unreachable], ids=["503", "504", "unreachable"])
def test_a_rate_limit_or_a_timeout_on_a_page_still_stops_the_run(db, aws, monkeypatch, error):
    """A 503 (a 429 the adapter did not wait out), a 504, or a ledger not reached is no refusal of these ids: the page
    is not split, the run stops there with one error without invoice (the next run starts again)."""
    from chalicelib.areas.invoices.jobs import ledger_invoice_sync

    invoices = _paid_in_ledger(db, 6)
    calls = _ledger_failing(monkeypatch, {invoices[2].ledger_invoice_id: error})  # the second page
    answer = ledger_invoice_sync()
    assert answer["updated"] == 2 and answer["errors"] == [
        {"invoice_id": None, "invoice_number": None, "error": error().message}], answer
    assert len(calls) == 2, calls  # the first page and the failing one, not split
    assert _synced(db, invoices) == [("paid", True)] * 2 + [("approved", False)] * 4
