"""A cancelled budget bills nothing more (session 31, 2026-11-29; invariants audit; docs/decisions/invoices.md,
"A cancelled budget bills nothing more").

Audit: a budget set `cancelled` (decisions.md section 9) could still be invoiced: an invoice generated from it, a
hand-made invoice naming it, a live invoice moved onto it, or one of its voided invoices set back. Now each is a 409
("The budget is cancelled ..."), nothing written. What it billed before it was cancelled stays (its invoices keep
their statuses and moves), and an invoice can leave it.
"""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import func, select

from chalicelib.areas.invoices.models import Invoice
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.invoices.factories import make_invoice
from tests.areas.timesheets.factories import make_entry
from tests.factories import make_user


def _count(db, budget) -> int:
    db.expire_all()
    return db.scalar(select(func.count(Invoice.id)).where(Invoice.budget_id == budget.id))


def _cancelled(db, budget_type="sprints", **values):
    budget = make_budget(db, budget_type=budget_type, status="cancelled", **values)
    make_line_item(db, budget, description="Sprint 1", quantity=Decimal("1"), unit_price=Decimal("5000"))
    return budget


def test_no_invoice_is_generated_from_a_cancelled_budget(api, db, exec_user):
    for kind in ("sprints", "retainer", "fixed_price"):
        budget = _cancelled(db, kind)
        made = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id, "generate_from_budget": True})
        assert made.status == 409, (kind, made.status, made.json)
        assert "cancelled" in made.json["error"]
        assert _count(db, budget) == 0


def test_no_time_is_billed_from_a_cancelled_budget(api, db, exec_user):
    budget = make_budget(db, budget_type="time_and_materials", status="cancelled")
    line = make_line_item(db, budget, description="Development", unit_price=Decimal("150"))
    make_entry(db, make_user(db), budget_id=budget.id, line_item_id=line.id, hours=Decimal("2"), status="approved")
    made = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id, "generate_from_budget": True})
    assert made.status == 409 and "cancelled" in made.json["error"]
    assert _count(db, budget) == 0


def test_no_hand_made_invoice_names_a_cancelled_budget(api, db, exec_user):
    budget = _cancelled(db)
    made = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id})
    assert made.status == 409 and "cancelled" in made.json["error"]
    assert _count(db, budget) == 0


def test_a_live_invoice_does_not_move_onto_a_cancelled_budget(api, db, exec_user):
    budget = _cancelled(db)
    invoice = make_invoice(db, budget_id=make_budget(db, budget_type="sprints").id)
    moved = api.put(f"/api/invoices/{invoice.id}", as_=exec_user, json={"budget_id": budget.id})
    assert moved.status == 409 and "cancelled" in moved.json["error"]
    assert _count(db, budget) == 0


def test_a_voided_invoice_of_a_cancelled_budget_stays_voided(api, db, exec_user):
    budget = make_budget(db, budget_type="sprints")
    make_line_item(db, budget, description="Sprint 1", quantity=Decimal("1"), unit_price=Decimal("5000"))
    made = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id, "generate_from_budget": True})
    assert made.status == 201
    invoice_id = made.json["invoice"]["id"]
    assert api.put(f"/api/invoices/{invoice_id}", as_=exec_user, json={"status": "voided"}).status == 200
    assert api.put(f"/api/budgets/{budget.id}", as_=exec_user, json={"status": "cancelled"}).status == 200
    back = api.put(f"/api/invoices/{invoice_id}", as_=exec_user, json={"status": "draft"})
    assert back.status == 409 and "cancelled" in back.json["error"]
    assert api.get(f"/api/invoices/{invoice_id}", as_=exec_user).json["invoice"]["status"] == "voided"
    # the way out: the budget set back first
    assert api.put(f"/api/budgets/{budget.id}", as_=exec_user, json={"status": "active"}).status == 200
    assert api.put(f"/api/invoices/{invoice_id}", as_=exec_user, json={"status": "draft"}).status == 200


def test_what_a_cancelled_budget_billed_stays_and_can_leave(api, db, exec_user):
    """Its live invoices keep their moves (paid, voided, edited) and may be moved off it."""
    budget = make_budget(db, budget_type="sprints")
    make_line_item(db, budget, description="Sprint 1", quantity=Decimal("1"), unit_price=Decimal("5000"))
    made = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id, "generate_from_budget": True})
    invoice_id = made.json["invoice"]["id"]
    assert api.put(f"/api/budgets/{budget.id}", as_=exec_user, json={"status": "cancelled"}).status == 200
    assert api.put(f"/api/invoices/{invoice_id}", as_=exec_user, json={"status": "paid"}).status == 200
    assert api.put(f"/api/invoices/{invoice_id}", as_=exec_user, json={"notes": "settled"}).status == 200
    other = make_budget(db, budget_type="sprints")
    assert api.put(f"/api/invoices/{invoice_id}", as_=exec_user, json={"budget_id": other.id}).status == 200
    assert api.put(f"/api/invoices/{invoice_id}", as_=exec_user, json={"status": "voided"}).status == 200
    # a voided invoice moves freely (it bills nothing), and stays voided there
    assert api.put(f"/api/invoices/{invoice_id}", as_=exec_user, json={"budget_id": budget.id}).status == 200


# ---------------------------------------------------------------- voided here, still billed in the ledger

def _retainer_in_ledger(api, db, exec_user):
    """A retainer budget of Acme (one line of 3000, design, mapped to account 210) and its invoice, generated, pushed
    and approved (AUTHORISED in the sandbox ledger): (budget, invoice id)."""
    from chalicelib.areas.invoices.models import InvoiceMappingRule
    from tests.areas.deals.factories import make_company
    from tests.factories import config_item

    design = config_item(db, "service_type", "design")
    db.add(InvoiceMappingRule(service_type_id=design.id, ledger_account_code="210"))
    budget = make_budget(db, budget_type="retainer", company_id=make_company(db, name="Acme Pty").id)
    make_line_item(db, budget, description="Monthly retainer", unit_price=Decimal("3000"), service_type_id=design.id)
    made = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id, "generate_from_budget": True})
    assert made.status == 201, made
    invoice_id = made.json["invoice"]["id"]
    assert api.post(f"/api/invoices/{invoice_id}/push-to-ledger", as_=exec_user).status == 200
    assert api.post(f"/api/invoices/{invoice_id}/ledger-approve", as_=exec_user).status == 200
    return budget, invoice_id


def test_an_invoice_the_ledger_bills_is_not_voided_here_alone(api, db, exec_user):
    """Voided by a PUT while the ledger invoice stayed AUTHORISED, the invoice stopped counting on its budget (a second
    retainer invoice was generated: two ledger invoices billed the client) and left the hourly sync for good."""
    budget, invoice_id = _retainer_in_ledger(api, db, exec_user)
    voided = api.put(f"/api/invoices/{invoice_id}", as_=exec_user, json={"status": "voided"})
    assert voided.status == 409, voided.json
    assert "ledger-void" in voided.json["error"]
    assert api.get(f"/api/invoices/{invoice_id}", as_=exec_user).json["invoice"]["status"] == "approved"
    again = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id, "generate_from_budget": True})
    assert again.status == 409 and "once" in again.json["error"]


def test_voided_in_the_ledger_first_then_free(api, db, exec_user):
    budget, invoice_id = _retainer_in_ledger(api, db, exec_user)
    assert api.post(f"/api/invoices/{invoice_id}/ledger-void", as_=exec_user).status == 200
    # voided there and here: sent back as voided passes, and the retainer may be invoiced again
    assert api.put(f"/api/invoices/{invoice_id}", as_=exec_user, json={"status": "voided"}).status == 200
    assert api.post("/api/invoices", as_=exec_user,
                    json={"budget_id": budget.id, "generate_from_budget": True}).status == 201


# ---------------------------------------------------------------- a paid invoice is not pushed

def test_a_paid_invoice_is_not_pushed_to_the_ledger(api, db, exec_user, ready):
    """Paid by hand (not in the ledger), the push made it a ledger DRAFT and set it `finalised`: the client's payment
    left the record (the overdue scan and the portal saw it owed again) and the ledger was asked to bill it."""
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice

    assert api.put(f"/api/invoices/{ready.id}", as_=exec_user, json={"status": "paid"}).status == 200
    pushed = api.post(f"/api/invoices/{ready.id}/push-to-ledger", as_=exec_user)
    assert pushed.status == 409, pushed.json
    assert "paid" in pushed.json["error"]
    shown = api.get(f"/api/invoices/{ready.id}", as_=exec_user).json["invoice"]
    assert (shown["status"], shown["ledger_invoice_id"]) == ("paid", None)
    assert db.scalar(select(func.count(LedgerSandboxInvoice.id))) == 0
    # set back (recorded in history) it is pushed as any invoice
    assert api.put(f"/api/invoices/{ready.id}", as_=exec_user, json={"status": "draft"}).status == 200
    assert api.post(f"/api/invoices/{ready.id}/push-to-ledger", as_=exec_user).status == 200
