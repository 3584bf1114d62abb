"""A cancelled budget's line items stay as they were when it was called off (session 31, 2026-11-29; invariants
audit; docs/decisions/budgets.md, "A cancelled budget is closed").

Audit: a budget set `cancelled` (decisions.md section 9) still took new line items, edits, removals and reorders, so
the record of what was called off (and what its invoices billed from its lines) changed after the fact. Now each is a
409 naming the state, nothing written; the way out is its status (set back, then edit). A line sent back unchanged,
reads, and the budget's own fields stay free.
"""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import func, select

from chalicelib.areas.budgets.models import BudgetLineItem
from tests.areas.budgets.factories import line_item_writes, make_budget, make_line_item


def test_a_cancelled_budgets_lines_do_not_change(api, db, exec_user):
    budget = make_budget(db, status="cancelled")
    line = make_line_item(db, budget, description="Design", quantity=Decimal("2"), unit_price=Decimal("500"))
    other = make_line_item(db, budget, description="Build", position=1)
    answers = line_item_writes(api, exec_user, budget, line, other)
    assert {name: answer.status for name, answer in answers.items()} == dict.fromkeys(answers, 409)
    assert all("cancelled" in answer.json["error"] for answer in answers.values())
    db.expire_all()
    assert db.scalar(select(func.count(BudgetLineItem.id)).where(BudgetLineItem.budget_id == budget.id)) == 2
    assert db.get(BudgetLineItem, line.id).unit_price == Decimal("500")
    assert [item["id"] for item in api.get(f"/api/budgets/{budget.id}", as_=exec_user).json["line_items"]] == [line.id, other.id]


def test_a_cancelled_budget_reads_and_reopens(api, db, exec_user):
    budget = make_budget(db, status="cancelled")
    line = make_line_item(db, budget, description="Design", quantity=Decimal("2"), unit_price=Decimal("500"))
    path = f"/api/budgets/{budget.id}"
    # a line sent back as read writes nothing, and passes
    assert api.put(f"{path}/line-items/{line.id}", as_=exec_user, json={"quantity": 2, "unit_price": 500}).status == 200
    assert api.get(path, as_=exec_user).status == 200
    assert api.put(path, as_=exec_user, json={"notes": "called off by the client"}).status == 200
    # the way out: its status set back, then the lines change again
    assert api.put(path, as_=exec_user, json={"status": "active"}).status == 200
    assert api.put(f"{path}/line-items/{line.id}", as_=exec_user, json={"unit_price": 600}).status == 200
    assert api.post(f"{path}/line-items", as_=exec_user, json={"description": "Extra"}).status == 201


# ---------------------------------------------------------------- a type change keeps what generation keeps

def _generate(api, user, budget):
    made = api.post("/api/invoices", as_=user, json={"budget_id": budget.id, "generate_from_budget": True})
    assert made.status == 201, made
    return made.json["invoice"]["id"]


def test_a_type_change_does_not_break_the_rules_of_its_invoices(api, db, exec_user):
    """A retainer is invoiced once and a fixed price bills at most its price (docs/decisions/invoices.md): a sprints
    budget invoiced twice was made a retainer (two live invoices on a retainer), or a fixed price of 1000 with 2000
    billed, by a PUT of budget_type."""
    budget = make_budget(db, budget_type="sprints", total_amount=Decimal("1000"))
    make_line_item(db, budget, description="Sprint", quantity=Decimal("1"), unit_price=Decimal("1000"))
    first, _second = _generate(api, exec_user, budget), _generate(api, exec_user, budget)
    path = f"/api/budgets/{budget.id}"
    retainer = api.put(path, as_=exec_user, json={"budget_type": "retainer"})
    assert retainer.status == 409, retainer.json
    assert "retainer" in retainer.json["error"]
    fixed = api.put(path, as_=exec_user, json={"budget_type": "fixed_price"})
    assert fixed.status == 409, fixed.json
    assert "fixed price" in fixed.json["error"]
    assert api.get(path, as_=exec_user).json["budget"]["budget_type"] == "sprints"
    # one of them voided: what is left fits both rules
    assert api.put(f"/api/invoices/{first}", as_=exec_user, json={"status": "voided"}).status == 200
    assert api.put(path, as_=exec_user, json={"budget_type": "fixed_price"}).status == 200
    assert api.put(path, as_=exec_user, json={"budget_type": "retainer"}).status == 200


def test_a_type_change_with_the_price_in_the_same_request(api, db, exec_user):
    """A fixed price raised to what is billed, with the type, passes; a budget without invoices changes freely."""
    budget = make_budget(db, budget_type="sprints")
    make_line_item(db, budget, description="Sprint", quantity=Decimal("1"), unit_price=Decimal("1000"))
    _generate(api, exec_user, budget), _generate(api, exec_user, budget)
    path = f"/api/budgets/{budget.id}"
    assert api.put(path, as_=exec_user, json={"budget_type": "fixed_price"}).status == 409  # the lines' 1000
    assert api.put(path, as_=exec_user, json={"budget_type": "fixed_price", "total_amount": 2000}).status == 200
    free = make_budget(db, budget_type="sprints")
    for kind in ("retainer", "fixed_price", "time_and_materials", "sprints"):
        assert api.put(f"/api/budgets/{free.id}", as_=exec_user, json={"budget_type": kind}).status == 200


def test_the_order_sent_back_as_stored_is_no_change_on_a_frozen_budget(api, db, exec_user):
    """Session 31's review: a reorder repeating the stored order (a save-back) changes nothing, so a cancelled
    budget's lines answer it 200 (it was the 409 of a change); another order is still refused."""
    budget = make_budget(db, status="cancelled")
    make_line_item(db, budget, description="Design")  # positions left at their default (0): ordered as created
    make_line_item(db, budget, description="Build")
    listed = [item["id"] for item in api.get(f"/api/budgets/{budget.id}", as_=exec_user).json["line_items"]]
    path = f"/api/budgets/{budget.id}/line-items/reorder"
    assert api.put(path, as_=exec_user, json={"item_ids": listed}).status == 200
    assert api.put(path, as_=exec_user, json={"item_ids": listed[::-1]}).status == 409
