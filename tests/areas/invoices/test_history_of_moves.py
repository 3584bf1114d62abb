"""History of the ledger moves and of a generation (docs/decisions/invoices.md, "History"): each move is logged
with its status change, a generation with what it billed."""
from datetime import date
from decimal import Decimal

from chalicelib.core import history
from chalicelib.core.schemas import PageQuery
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item


def entries(db, invoice_id):
    return [(e["action"], e["changes"]) for e in reversed(history.entries(
        db, entity_type="invoice", entity_id=invoice_id, query=PageQuery()).items)]


def test_ledger_moves_are_logged_with_their_status_change(api, db, exec_user):
    invoice = make_invoice(db, company_id=make_company(db).id, due_date=date(2026, 4, 1))
    make_invoice_item(db, invoice, unit_price=Decimal("100"))
    path = f"/api/invoices/{invoice.id}"
    ledger_id = api.post(f"{path}/push-to-ledger", as_=exec_user).json["ledger_invoice_id"]
    for move in ("ledger-approve", "ledger-send", "ledger-void"):
        assert api.post(f"{path}/{move}", as_=exec_user).status == 200, move
    other = make_invoice(db, company_id=invoice.company_id)
    make_invoice_item(db, other)
    other_ledger_id = api.post(f"/api/invoices/{other.id}/push-to-ledger", as_=exec_user).json["ledger_invoice_id"]
    assert api.post(f"/api/invoices/{other.id}/ledger-delete", as_=exec_user).status == 200
    assert entries(db, invoice.id) == [
        ("pushed_to_ledger", {"ledger_invoice_id": ledger_id, "status": {"from": "draft", "to": "finalised"}}),
        ("ledger_approved", {"ledger_invoice_id": ledger_id, "status": {"from": "finalised", "to": "approved"}}),
        ("ledger_sent", {"ledger_invoice_id": ledger_id, "status": {"from": "approved", "to": "sent"}}),
        ("ledger_voided", {"ledger_invoice_id": ledger_id, "status": {"from": "sent", "to": "voided"}})]
    assert [action for action, _ in entries(db, other.id)] == ["pushed_to_ledger", "ledger_deleted"]
    assert entries(db, other.id)[1][1] == {"ledger_invoice_id": other_ledger_id,
                                           "status": {"from": "finalised", "to": "draft"}}


def test_a_generation_is_logged(api, db, exec_user):
    budget = make_budget(db, budget_type="sprints")
    make_line_item(db, budget, description="Sprint 1", unit_price=Decimal("1000"))
    made = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id, "generate_from_budget": True})
    assert made.status == 201, made
    logged = entries(db, made.json["invoice"]["id"])
    assert [action for action, _ in logged] == ["created", "generated_from_budget"]
    assert logged[1][1] == {"budget_id": budget.id, "budget_type": "sprints", "lines": 1, "total": 1100.0}
