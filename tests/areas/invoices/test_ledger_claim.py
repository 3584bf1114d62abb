"""One push or ledger move at a time per invoice (docs/decisions/invoices.md, "Ledger calls and locks"): the
request claims the invoice (`ledger_move_since`, committed) before it calls the ledger; a second one meanwhile is
a 409 that calls nothing and writes nothing; the claim goes with the outcome, a success or a failure; a claim
older than STALE_CLAIM is a dead request's and is taken over. The races themselves:
tests/concurrency/test_invoices_ledger_claim.py."""
from datetime import date, timedelta

from sqlalchemy import func, select, update

from chalicelib.areas.invoices.models import Invoice
from chalicelib.areas.invoices.service_ledger import STALE_CLAIM
from chalicelib.core.ids import utcnow
from chalicelib.core.models import HistoryEntry
from chalicelib.providers.ledger.models import LedgerSandboxInvoice
from chalicelib.providers.ledger.sandbox import SandboxLedger, record_payment
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item

BUSY = "Another ledger action on this invoice is under way"


def post(api, user, invoice, move):
    return api.post(f"/api/invoices/{invoice.id}/{move}", as_=user)


def _claim(db, invoice_id):
    return db.scalar(select(Invoice.ledger_move_since).where(Invoice.id == invoice_id))


def _hold(db, invoice_id, since):
    db.execute(update(Invoice).where(Invoice.id == invoice_id).values(ledger_move_since=since))
    db.flush()


def _state(db, invoice_id):
    db.expire_all()
    invoice = db.get(Invoice, invoice_id)
    history = db.scalar(select(func.count()).select_from(HistoryEntry)
                        .where(HistoryEntry.entity_type == "invoice", HistoryEntry.entity_id == invoice_id))
    return invoice.status, invoice.ledger_status, invoice.ledger_invoice_id, invoice.updated_at, history


def _ledger_rows(db, invoice):
    db.expire_all()
    return [(row.status, row.emailed_at) for row in db.scalars(
        select(LedgerSandboxInvoice).where(LedgerSandboxInvoice.invoice_number == invoice.invoice_number))]


def test_a_move_while_another_holds_the_claim_is_a_409_that_asks_nothing(api, db, exec_user, ready):
    ledger_id = post(api, exec_user, ready, "push-to-ledger").json["ledger_invoice_id"]
    held = utcnow() - timedelta(seconds=5)
    _hold(db, ready.id, held)
    before, ledger_before = _state(db, ready.id), _ledger_rows(db, ready)
    for move in ("ledger-approve", "ledger-delete"):
        answer = post(api, exec_user, ready, move)
        assert answer.status == 409 and answer.json["error"] == BUSY, (move, answer)
    assert _state(db, ready.id) == before and _ledger_rows(db, ready) == ledger_before == [("DRAFT", None)]
    assert _claim(db, ready.id) == held  # the holder's, untouched
    _hold(db, ready.id, None)
    assert post(api, exec_user, ready, "ledger-approve").status == 200
    _hold(db, ready.id, held)
    before = _state(db, ready.id)
    for move in ("ledger-send", "ledger-void"):
        answer = post(api, exec_user, ready, move)
        assert answer.status == 409 and answer.json["error"] == BUSY, (move, answer)
    assert _state(db, ready.id) == before and _ledger_rows(db, ready) == [("AUTHORISED", None)]
    assert db.get(LedgerSandboxInvoice, ledger_id).status == "AUTHORISED"


def test_a_push_while_another_holds_the_claim_makes_no_ledger_invoice(api, db, exec_user, ready):
    _hold(db, ready.id, utcnow())
    before = _state(db, ready.id)
    answer = post(api, exec_user, ready, "push-to-ledger")
    assert answer.status == 409 and answer.json["error"] == BUSY, answer
    assert _state(db, ready.id) == before and _ledger_rows(db, ready) == []


def test_a_stale_claim_is_taken_over(api, db, exec_user, ready):
    _hold(db, ready.id, utcnow() - STALE_CLAIM - timedelta(seconds=5))
    pushed = post(api, exec_user, ready, "push-to-ledger")
    assert pushed.status == 200, pushed
    assert _claim(db, ready.id) is None
    _hold(db, ready.id, utcnow() - STALE_CLAIM - timedelta(seconds=5))
    approved = post(api, exec_user, ready, "ledger-approve")
    assert approved.status == 200 and approved.json["invoice"]["status"] == "approved", approved
    assert _claim(db, ready.id) is None


def test_stale_claim_bound_outlasts_the_function_timeout():
    import json
    from pathlib import Path

    settings = json.loads((Path(__file__).resolve().parents[3] / "infra" / "areas.json").read_text())
    invoices = settings["areas"]["invoices"]
    timeouts = [invoices["timeout"], invoices.get("jobs", settings["defaults"]["jobs"])["timeout"]]
    assert STALE_CLAIM > timedelta(seconds=max(timeouts))


def _watch(monkeypatch, db, invoice, name):
    """Record the invoice's claim as the ledger's `name` is called (the claim must be committed by then)."""
    seen = []
    real = getattr(SandboxLedger, name)

    def watched(self, *args, **kwargs):
        seen.append(_claim(db, invoice.id))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SandboxLedger, name, watched)
    return seen


def test_the_claim_is_held_while_the_ledger_answers_and_let_go_after_success(api, db, exec_user, ready, monkeypatch):
    created = _watch(monkeypatch, db, ready, "create_invoice")
    moved = _watch(monkeypatch, db, ready, "set_status")
    emailed = _watch(monkeypatch, db, ready, "email_invoice")
    assert post(api, exec_user, ready, "push-to-ledger").status == 200
    assert post(api, exec_user, ready, "ledger-approve").status == 200
    assert post(api, exec_user, ready, "ledger-send").status == 200
    assert len(created) == len(moved) == len(emailed) == 1
    assert all(seen[0] is not None for seen in (created, moved, emailed))
    assert _claim(db, ready.id) is None


def test_the_claim_is_let_go_after_a_ledger_refusal(api, db, exec_user, ready, monkeypatch):
    ledger_id = post(api, exec_user, ready, "push-to-ledger").json["ledger_invoice_id"]
    assert post(api, exec_user, ready, "ledger-approve").status == 200
    record_payment(db, ledger_id, "100.00", on=date(2026, 4, 2))  # the ledger will not void it now
    moved = _watch(monkeypatch, db, ready, "set_status")
    before = _state(db, ready.id)
    answer = post(api, exec_user, ready, "ledger-void")
    assert answer.status == 502 and "payments" in answer.json["error"], answer
    assert moved[0] is not None and _claim(db, ready.id) is None
    assert _state(db, ready.id) == before  # nothing written but the claim, gone again
    assert post(api, exec_user, ready, "ledger-send").status == 200  # the next move is not refused as busy


def test_the_claim_is_let_go_after_a_refused_push(api, db, exec_user, monkeypatch):
    invoice = make_invoice(db, company_id=make_company(db, name="An invalid contact").id)
    make_invoice_item(db, invoice)
    created = _watch(monkeypatch, db, invoice, "create_invoice")
    answer = post(api, exec_user, invoice, "push-to-ledger")
    assert answer.status == 502, answer
    assert created[0] is not None and _claim(db, invoice.id) is None
    assert post(api, exec_user, invoice, "push-to-ledger").status == 502  # the ledger's refusal again, not busy


def test_the_claim_is_let_go_when_the_invoice_changed_while_the_ledger_answered(api, db, exec_user, ready,
                                                                               monkeypatch):
    post(api, exec_user, ready, "push-to-ledger")
    set_status = SandboxLedger.set_status

    def racing_set_status(self, ledger_invoice_id, status, **kwargs):
        answer = set_status(self, ledger_invoice_id, status, **kwargs)
        db.execute(update(Invoice).where(Invoice.id == ready.id).values(ledger_invoice_id="set-by-hand",
                                                                        ledger_status=None))
        return answer

    monkeypatch.setattr(SandboxLedger, "set_status", racing_set_status)
    answer = post(api, exec_user, ready, "ledger-approve")
    assert answer.status == 409 and answer.json["error"] != BUSY, answer
    assert _claim(db, ready.id) is None
