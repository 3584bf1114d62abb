"""The accounting ledger moves of an invoice against the sandbox ledger (issue 15 item 3): push, approve,
send, void, delete of drafts, PDF, live status, single and batch sync (also the hourly job), delete."""
from datetime import date
from decimal import Decimal

import pytest
from sqlalchemy import select

from chalicelib.areas.invoices.models import Invoice, LedgerSyncRun
from chalicelib.providers.ledger.models import LedgerSandboxInvoice
from chalicelib.providers.ledger.sandbox import record_payment
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item
from tests.areas.invoices.test_ledger_reads_s26 import ledger_read_long_ago
from tests.factories import config_item, make_user


@pytest.fixture
def ready(db):
    """An invoice of Acme with two lines (one priced through a mapping rule), not yet in the ledger."""
    from chalicelib.areas.invoices.models import InvoiceMappingRule

    design = config_item(db, "service_type", "design")
    db.add(InvoiceMappingRule(service_type_id=design.id, ledger_account_code="210"))
    invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, due_date=date(2026, 4, 1))
    make_invoice_item(db, invoice, description="Design", quantity=Decimal("2"), unit_price=Decimal("500"),
                      service_type_id=design.id)
    make_invoice_item(db, invoice, description="Hosting", unit_price=Decimal("100"), position=1,
                      ledger_account_code="260")
    invoice.subtotal, invoice.tax, invoice.total = Decimal("1100"), Decimal("110"), Decimal("1210")
    db.flush()
    return invoice


def post(api, user, invoice, move):
    return api.post(f"/api/invoices/{invoice.id}/{move}", as_=user)


def test_push_approve_send_and_pay(api, db, exec_user, ready):
    pushed = post(api, exec_user, ready, "push-to-ledger")
    assert pushed.status == 200, pushed
    ledger_id = pushed.json["ledger_invoice_id"]
    assert pushed.json["invoice"]["status"] == "finalised" and pushed.json["invoice"]["ledger_invoice_id"] == ledger_id
    stored = db.get(LedgerSandboxInvoice, ledger_id)
    assert stored.contact_name == "Acme Pty" and stored.status == "DRAFT" and stored.total == Decimal("1210.00")
    assert [line["account_code"] for line in stored.lines] == ["210", "260"]  # mapping rule, then the line's own
    assert post(api, exec_user, ready, "push-to-ledger").status == 409  # once
    assert post(api, exec_user, ready, "ledger-send").status == 409  # a draft cannot be e-mailed
    assert post(api, exec_user, ready, "ledger-void").status == 409  # nor voided
    approved = post(api, exec_user, ready, "ledger-approve")
    assert approved.status == 200 and approved.json["invoice"]["status"] == "approved"
    assert approved.json["invoice"]["ledger_status"] == "AUTHORISED"
    sent = post(api, exec_user, ready, "ledger-send")
    assert sent.status == 200 and sent.json["invoice"]["status"] == "sent"
    db.refresh(stored)
    assert stored.emailed_at is not None
    assert post(api, exec_user, ready, "ledger-delete").status == 409  # only drafts are deleted

    record_payment(db, ledger_id, "1000.00", on=date(2026, 4, 2), reference="EFT 1")
    synced = post(api, exec_user, ready, "sync-ledger")
    assert synced.status == 200, synced
    body = synced.json
    assert body["ledger_status"] == "AUTHORISED" and body["payment_status"] == "partially_paid"
    assert body["invoice"]["amount_paid"] == 1000 and body["invoice"]["amount_due"] == 210
    assert [(p["amount"], p["date"], p["reference"]) for p in body["payments"]] == [(1000.0, "2026-04-02", "EFT 1")]
    record_payment(db, ledger_id, "210.00", on=date(2026, 4, 3))
    ledger_read_long_ago(db)  # past the detail's window (session 26)
    detail = api.get(f"/api/invoices/{ready.id}", as_=exec_user).json  # live status on detail
    assert detail["invoice"]["ledger_status"] == "PAID" and detail["invoice"]["payment_status"] == "paid"
    assert detail["invoice"]["status"] == "paid" and len(detail["payments"]) == 2
    assert detail["invoice"]["ledger_url"].endswith(ledger_id)
    assert post(api, exec_user, ready, "ledger-void").status == 409  # paid: the ledger would refuse
    # a ledger id set by hand (a draft made in the ledger for the same client): its status is unknown until a sync
    from chalicelib.areas.deals.models import Company
    from chalicelib.providers.ledger.sandbox import SandboxLedger

    # with the ledger invoice's total: a hand link must bill what the ledger invoice bills (session 22)
    hand = make_invoice(db, company_id=ready.company_id, subtotal=Decimal("10"), tax=Decimal("1"), total=Decimal("11"))
    made = SandboxLedger(db=db).create_invoice({
        "invoice_number": "XERO-7", "contact_name": db.get(Company, ready.company_id).name, "date": "2026-03-01",
        "due_date": None, "currency": "AUD", "reference": None,
        "lines": [{"description": "Work", "quantity": Decimal("1"), "unit_amount": Decimal("10"),
                   "account_code": None, "tax_type": None}]})["ledger_invoice_id"]
    assert api.put(f"/api/invoices/{hand.id}", as_=exec_user, json={"ledger_invoice_id": made}).status == 200
    for move in ("ledger-approve", "ledger-send", "ledger-void", "ledger-delete"):
        assert post(api, exec_user, hand, move).status == 409, move
    assert api.get(f"/api/invoices/{hand.id}/pdf", as_=exec_user).status == 409
    db.delete(db.get(LedgerSandboxInvoice, made))  # gone from the ledger since
    db.flush()
    assert post(api, exec_user, hand, "sync-ledger").status == 409  # the ledger does not hold it
    assert api.get(f"/api/invoices/{hand.id}", as_=exec_user).status == 200


def test_void_and_delete_draft(api, db, exec_user, ready):
    post(api, exec_user, ready, "push-to-ledger")
    deleted = post(api, exec_user, ready, "ledger-delete")
    assert deleted.status == 200 and deleted.json["invoice"]["ledger_invoice_id"] is None
    assert deleted.json["invoice"]["status"] == "draft"
    assert post(api, exec_user, ready, "ledger-approve").status == 409  # no longer linked
    ledger_id = post(api, exec_user, ready, "push-to-ledger").json["ledger_invoice_id"]
    post(api, exec_user, ready, "ledger-approve")
    voided = post(api, exec_user, ready, "ledger-void")
    assert voided.status == 200 and voided.json["invoice"]["status"] == "voided"
    assert db.get(LedgerSandboxInvoice, ledger_id).status == "VOIDED"


def test_push_needs_a_company_and_lines(api, db, exec_user):
    loose = make_invoice(db)
    make_invoice_item(db, loose)
    answer = post(api, exec_user, loose, "push-to-ledger")
    assert answer.status == 400 and answer.json["details"][0]["field"] == "company_id"
    empty = make_invoice(db, company_id=make_company(db).id)
    assert post(api, exec_user, empty, "push-to-ledger").status == 409
    refused = make_invoice(db, company_id=make_company(db, name="An invalid contact").id)
    make_invoice_item(db, refused)
    answer = post(api, exec_user, refused, "push-to-ledger")
    assert answer.status == 502 and "Contact" in answer.json["error"]  # the ledger's message
    assert db.get(Invoice, refused.id).ledger_invoice_id is None


def test_pdf_is_binary_with_attachment(api, db, exec_user, ready, employee):
    assert api.get(f"/api/invoices/{ready.id}/pdf", as_=exec_user).status == 409  # not in the ledger yet
    post(api, exec_user, ready, "push-to-ledger")
    answer = api.get(f"/api/invoices/{ready.id}/pdf", as_=exec_user, headers={"Accept": "*/*"})
    assert answer.status == 200, answer
    assert answer.headers["content-type"] == "application/pdf"
    assert answer.headers["content-disposition"] == f'attachment; filename="{ready.invoice_number}.pdf"'
    assert answer.body.startswith(b"%PDF-") and ready.invoice_number.encode() in answer.body
    assert api.get(f"/api/invoices/{ready.id}/pdf", as_=employee).status == 200  # view suffices


def test_delete_removes_from_the_ledger_first(api, db, exec_user, ready):
    draft_id = post(api, exec_user, ready, "push-to-ledger").json["ledger_invoice_id"]
    assert api.delete(f"/api/invoices/{ready.id}", as_=exec_user).json == {"ok": True}
    assert db.get(LedgerSandboxInvoice, draft_id).status == "DELETED"
    other = make_invoice(db, company_id=make_company(db).id)
    make_invoice_item(db, other)
    authorised = post(api, exec_user, other, "push-to-ledger").json["ledger_invoice_id"]
    post(api, exec_user, other, "ledger-approve")
    assert api.delete(f"/api/invoices/{other.id}", as_=exec_user).json == {"ok": True}
    assert db.get(LedgerSandboxInvoice, authorised).status == "VOIDED"
    other_id = other.id
    db.expire_all()
    assert db.get(Invoice, other_id) is None


def test_moves_need_manage_and_scope(api, db, exec_user, ready):
    manager = make_user(db, access_level="manager")
    assert post(api, manager, ready, "push-to-ledger").status == 200  # update
    for move in ("ledger-approve", "ledger-send", "ledger-void", "ledger-delete"):
        assert post(api, manager, ready, move).status == 403, move


def test_batch_sync_and_the_hourly_job(api, db, exec_user, ready):
    from chalicelib.areas.invoices import jobs

    post(api, exec_user, ready, "push-to-ledger")
    post(api, exec_user, ready, "ledger-approve")
    db.expire_all()
    ledger_id = db.get(Invoice, ready.id).ledger_invoice_id
    gone = make_invoice(db, ledger_invoice_id="00000000-0000-0000-0000-00000000dead")
    record_payment(db, ledger_id, "1210.00", on=date(2026, 4, 5))
    first = api.post("/api/invoices/sync-ledger", as_=exec_user)
    assert first.status == 200, first
    assert first.json["updated"] >= 1 and first.json["synced_at"].endswith("Z")
    assert {"invoice_id": gone.id, "invoice_number": gone.invoice_number,
            "error": "not found in the ledger"} in first.json["errors"]
    db.expire_all()
    stored = db.get(Invoice, ready.id)
    assert stored.payment_status == "paid" and stored.amount_paid == Decimal("1210.00") and stored.status == "paid"
    result = jobs.ledger_invoice_sync()  # run again (as the schedule does): nothing new changes
    assert result["updated"] == 0
    runs = db.scalars(select(LedgerSyncRun).order_by(LedgerSyncRun.started_at)).all()
    assert [run.trigger for run in runs][-2:] == ["request", "schedule"] and runs[-1].errors
    assert api.post("/api/invoices/sync-ledger", as_=make_user(db, access_level="employee")).status == 403


def test_job_is_listed_hourly(capsys):
    from chalicelib import cli

    assert cli.main(["job", "--list"]) == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("ledger-invoice-sync"))
    assert "rate(1 hour)" in line


def test_ledger_off_is_503(api, db, exec_user, ready, set_env):
    set_env(LEDGER_MODE="off")
    assert post(api, exec_user, ready, "push-to-ledger").status == 503
    body = api.post("/api/invoices/sync-ledger", as_=exec_user).json
    assert body["updated"] == 0 and body["errors"][0]["error"] == "The accounting ledger is not configured"
    set_env(LEDGER_MODE="live")
    assert post(api, exec_user, ready, "push-to-ledger").status == 503  # live, not connected


def test_batch_sync_answers_at_most_500_errors(api, db, exec_user):
    """decisions.md section 4: each linked invoice the ledger does not hold is a failure; the run records them
    all, the answer lists the first 500."""
    from chalicelib.core.ids import new_id
    from chalicelib.core.locks import insert_rows

    insert_rows(db, Invoice, [{"id": new_id(), "invoice_number": f"GONE-{n:04d}", "status": "sent", "currency": "AUD",
                               "issued_date": date(2026, 3, 1), "subtotal": Decimal("0"), "tax": Decimal("0"),
                               "total": Decimal("0"), "amount_paid": Decimal("0"),
                               "ledger_invoice_id": f"00000000-0000-0000-0000-{n:012d}"} for n in range(501)])
    db.flush()
    body = api.post("/api/invoices/sync-ledger", as_=exec_user).json
    assert len(body["errors"]) == 500 and body["errors"][0]["error"] == "not found in the ledger"
    run = db.scalars(select(LedgerSyncRun).order_by(LedgerSyncRun.started_at.desc())).first()
    assert len(run.errors) == 501


def test_pdf_of_an_invoice_numbered_outside_ascii_has_an_ascii_header(api, db, exec_user, ready):
    """A header value is ASCII (a server sending it encodes latin-1 at most: `chalice local` dropped the connection
    on `請求書` instead of answering); the file name outside ASCII goes in RFC 6266's `filename*`."""
    ready.invoice_number = "請求書-ä 7"
    db.flush()
    post(api, exec_user, ready, "push-to-ledger")
    answer = api.get(f"/api/invoices/{ready.id}/pdf", as_=exec_user, headers={"Accept": "*/*"})
    assert answer.status == 200, answer
    disposition = answer.headers["content-disposition"]
    assert disposition.isascii(), disposition
    assert disposition == ("attachment; filename=\"___-__7.pdf\"; "
                           "filename*=UTF-8''%E8%AB%8B%E6%B1%82%E6%9B%B8-%C3%A4%207.pdf")
