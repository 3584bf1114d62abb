"""Factories of the budgets area."""
from __future__ import annotations

import itertools
from decimal import Decimal

from chalicelib.areas.budgets.models import Budget, BudgetLineItem

_seq = itertools.count(1)


def make_budget(db, **overrides) -> Budget:
    if "resource_id" not in overrides:
        from tests.areas.projects.factories import make_project

        overrides["resource_id"] = make_project(db).id
    values = {"name": f"Budget {next(_seq)}", "resource_type": "project", "currency": "AUD", "status": "draft"}
    values.update(overrides)
    budget = Budget(**values)
    db.add(budget)
    db.flush()
    return budget


def make_line_item(db, budget: Budget, **overrides) -> BudgetLineItem:
    values = {"description": f"Line {next(_seq)}", "quantity": Decimal("1"), "unit_price": Decimal("100"),
              "position": 0}
    values.update(overrides)
    values["amount"] = Decimal(values["quantity"]) * Decimal(values["unit_price"])
    item = BudgetLineItem(budget_id=budget.id, **values)
    db.add(item)
    db.flush()
    return item
