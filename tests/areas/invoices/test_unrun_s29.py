"""Code no test ran (session 29 coverage audit): a locally voided invoice pushed, a line item's service type
changed, a null position, a fixed price too large for one invoice line."""
from __future__ import annotations

from decimal import Decimal

from chalicelib.areas.invoices.models import Invoice, InvoiceLineItem
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.invoices.factories import make_invoice, make_invoice_item
from tests.factories import config_item


def test_a_locally_voided_invoice_is_not_pushed_to_the_ledger(api, db, exec_user, ready):
    assert api.put(f"/api/invoices/{ready.id}", as_=exec_user, json={"status": "voided"}).status == 200
    answer = api.post(f"/api/invoices/{ready.id}/push-to-ledger", as_=exec_user)
    assert answer.status == 409 and "voided" in answer.json["error"], answer
    db.expire_all()
    assert db.get(Invoice, ready.id).ledger_invoice_id is None


def test_a_line_items_service_type_is_checked_and_changed(api, db, exec_user):
    invoice = make_invoice(db, subtotal=Decimal("100"), tax=Decimal("10"), total=Decimal("110"))
    item = make_invoice_item(db, invoice, description="Design")
    path = f"/api/invoices/{invoice.id}/line-items/{item.id}"
    unknown = api.put(path, as_=exec_user, json={"service_type_id": "00000000-0000-0000-0000-000000000000"})
    assert unknown.status == 400 and unknown.json["details"][0]["field"] == "service_type_id", unknown
    design = config_item(db, "service_type", "design")
    changed = api.put(path, as_=exec_user, json={"service_type_id": design.id})
    assert changed.status == 200 and changed.json["item"]["service_type_id"] == design.id, changed
    db.expire_all()
    assert db.get(InvoiceLineItem, item.id).service_type_id == design.id
    # a line holding a service type, updated without it, keeps it (nothing checked, nothing cleared)
    kept = api.put(path, as_=exec_user, json={"description": "Design work"})
    assert kept.status == 200 and kept.json["item"]["service_type_id"] == design.id


def test_a_null_position_is_refused(api, db, exec_user):
    invoice = make_invoice(db)
    item = make_invoice_item(db, invoice, description="Design")
    answer = api.put(f"/api/invoices/{invoice.id}/line-items/{item.id}", as_=exec_user, json={"position": None})
    assert answer.status == 400 and answer.json["details"][0]["field"] == "position", answer


def test_a_fixed_price_too_large_for_one_line_is_a_400(api, db, exec_user):
    budget = make_budget(db, budget_type="fixed_price", name="Huge")  # no total_amount: its lines make the price
    make_line_item(db, budget, quantity=Decimal("1000"), unit_price=Decimal("999999999999.99"))
    answer = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id, "generate_from_budget": True})
    assert answer.status == 400 and answer.json["details"][0]["field"] == "budget_id", answer
    assert db.query(Invoice).filter(Invoice.budget_id == budget.id).count() == 0


def test_a_rate_limit_met_while_a_refused_page_is_split_stops_the_run_after_naming_the_refused(db, aws, monkeypatch):
    """A page of two: the ledger refuses the first invoice (the page is split), then rate-limits the call of the
    second half. The refused invoice is named, the rate limit is one error without invoice, the run stops there (the
    later pages wait for the next run)."""
    from chalicelib.areas.invoices.jobs import ledger_invoice_sync
    from chalicelib.core.errors import BadGateway
    from tests.areas.invoices.test_jobs import REFUSED, _ledger_failing, _paid_in_ledger, _rate_limited, _synced

    invoices = _paid_in_ledger(db, 4)
    calls = _ledger_failing(monkeypatch, {invoices[0].ledger_invoice_id: lambda: BadGateway(REFUSED),
                                          invoices[1].ledger_invoice_id: _rate_limited})
    answer = ledger_invoice_sync()
    assert answer["updated"] == 0 and answer["errors"] == [
        {"invoice_id": invoices[0].id, "invoice_number": invoices[0].invoice_number, "error": REFUSED},
        {"invoice_id": None, "invoice_number": None, "error": _rate_limited().message}], answer
    assert len(calls) == 3, calls  # the page and its two halves; not the next page
    assert _synced(db, invoices) == [("approved", False)] * 4


def test_a_hand_link_whose_ledger_answer_has_no_total_is_refused(api, db, exec_user, monkeypatch):
    """The ledger answers the invoice without its total (Xero's `Total` left out): the link cannot be checked, so it
    is not made (400 on ledger_invoice_id), as without the contact."""
    from chalicelib.providers.ledger.sandbox import SandboxLedger
    from tests.areas.deals.factories import make_company
    from tests.areas.invoices.test_ledger_link import LEDGER_TOTALS, _made_in_the_ledger

    own = _made_in_the_ledger(db, "Acme Pty")
    ours = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, **LEDGER_TOTALS)
    answer = SandboxLedger.get_invoices
    monkeypatch.setattr(SandboxLedger, "get_invoices", lambda self, ids: [
        {**state, "total": None} for state in answer(self, ids)])
    linked = api.put(f"/api/invoices/{ours.id}", as_=exec_user, json={"ledger_invoice_id": own})
    assert linked.status == 400, linked
    assert linked.json["details"] == [{"field": "ledger_invoice_id",
                                       "message": "cannot be checked: the ledger did not answer the invoice's total"}]
    db.expire_all()
    assert db.get(Invoice, ours.id).ledger_invoice_id is None


def test_a_hand_link_whose_company_changed_while_the_ledger_was_asked_is_a_409(api, db, exec_user, monkeypatch):
    """Another request moved the invoice to another company while the ledger was asked (no transaction open): the
    ledger invoice was checked against the first company's name, so nothing is linked."""
    from sqlalchemy import update

    from chalicelib.providers.ledger.sandbox import SandboxLedger
    from tests.areas.deals.factories import make_company
    from tests.areas.invoices.test_ledger_link import LEDGER_TOTALS, _made_in_the_ledger

    own = _made_in_the_ledger(db, "Acme Pty")
    ours = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, **LEDGER_TOTALS)
    other = make_company(db, name="Other Client Ltd")
    answer = SandboxLedger.get_invoices

    def moved_meanwhile(self, ids):
        db.execute(update(Invoice).where(Invoice.id == ours.id).values(company_id=other.id))
        return answer(self, ids)

    monkeypatch.setattr(SandboxLedger, "get_invoices", moved_meanwhile)
    linked = api.put(f"/api/invoices/{ours.id}", as_=exec_user, json={"ledger_invoice_id": own})
    assert linked.status == 409 and "company changed" in linked.json["error"], linked
    db.expire_all()
    assert db.get(Invoice, ours.id).ledger_invoice_id is None


def test_a_ledger_status_changed_while_the_move_was_asked_writes_nothing_here(api, db, exec_user, ready, monkeypatch):
    """A sync wrote PAID while the approval was asked (the claim holds moves, not syncs): PAID is no status an approval
    starts from, so the approval answers 409, writes nothing here, and the claim is let go (the next move may run)."""
    from sqlalchemy import update

    from chalicelib.providers.ledger.sandbox import SandboxLedger

    assert api.post(f"/api/invoices/{ready.id}/push-to-ledger", as_=exec_user).status == 200
    real = SandboxLedger.set_status

    def synced_meanwhile(self, ledger_id, status, **kwargs):
        answer = real(self, ledger_id, status, **kwargs)
        db.execute(update(Invoice).where(Invoice.id == ready.id).values(ledger_status="PAID", status="paid"))
        return answer

    monkeypatch.setattr(SandboxLedger, "set_status", synced_meanwhile)
    answer = api.post(f"/api/invoices/{ready.id}/ledger-approve", as_=exec_user)
    assert answer.status == 409 and answer.json["error"].startswith("The invoice became PAID"), answer
    db.expire_all()
    stored = db.get(Invoice, ready.id)
    assert (stored.status, stored.ledger_status, stored.ledger_move_since) == ("paid", "PAID", None)
