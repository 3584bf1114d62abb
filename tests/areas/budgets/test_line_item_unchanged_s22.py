"""A budget line item sent back unchanged writes nothing (session 22, docs/decisions/budgets.md "Line items sent back
unchanged"). Audit: a client saving the whole row it read wrote a `line_item_updated` entry whose changes held only
`item_id`, and touched the budget's updated_at: the budget's history and the portal's recent activity filled with
empty entries."""
from __future__ import annotations

from decimal import Decimal

from chalicelib.areas.budgets.models import Budget
from chalicelib.core import history
from chalicelib.core.schemas import PageQuery
from tests.areas.budgets.factories import make_budget, make_line_item


def _updates(db, budget_id):
    entries = history.entries(db, entity_type="budget", entity_id=budget_id, query=PageQuery()).items
    return [e["changes"] for e in entries if e["action"] == "line_item_updated"]


def _updated_at(db, budget_id):
    db.expire_all()
    return db.get(Budget, budget_id).updated_at


def test_budget_line_item_sent_back_unchanged_logs_no_history(api, db, exec_user):
    budget = make_budget(db)
    item = make_line_item(db, budget, description="Design", quantity=Decimal("2"), unit_price=Decimal("150.50"))
    stamped = _updated_at(db, budget.id)
    answer = api.put(f"/api/budgets/{budget.id}/line-items/{item.id}", as_=exec_user,
                     json={"description": "Design", "quantity": 2, "unit_price": "150.50", "position": 0,
                           "service_type_id": None, "task_id": None})
    assert answer.status == 200, answer
    assert answer.json["item"]["amount"] == 301.0
    assert _updates(db, budget.id) == []
    assert _updated_at(db, budget.id) == stamped  # the budget is not touched either


def test_budget_line_item_changed_is_recorded_with_its_change(api, db, exec_user):
    budget = make_budget(db)
    item = make_line_item(db, budget, description="Design")
    stamped = _updated_at(db, budget.id)
    answer = api.put(f"/api/budgets/{budget.id}/line-items/{item.id}", as_=exec_user,
                     json={"description": "Design", "quantity": 3, "unit_price": 100})
    assert answer.status == 200, answer
    assert _updates(db, budget.id) == [{"item_id": item.id, "quantity": {"from": 1.0, "to": 3.0},
                                        "amount": {"from": 100.0, "to": 300.0}}]
    assert _updated_at(db, budget.id) != stamped
