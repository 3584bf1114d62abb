"""Factories of the budgets area."""
from __future__ import annotations

import itertools

from sqlalchemy import select

from chalicelib.areas.budgets.models import Budget, BudgetLineItem
from chalicelib.areas.portal.models import PortalNotification
from tests.factories import add_row, priced_line

_seq = itertools.count(1)


def make_budget(db, **overrides) -> Budget:
    if "resource_id" not in overrides:
        from tests.areas.projects.factories import make_project

        overrides["resource_id"] = make_project(db).id
    return add_row(db, Budget, {"name": f"Budget {next(_seq)}", "resource_type": "project", "currency": "AUD",
                                "status": "draft"}, overrides)


def make_line_item(db, budget: Budget, **overrides) -> BudgetLineItem:
    return add_row(db, BudgetLineItem, priced_line(next(_seq), overrides), {}, budget_id=budget.id)


# ---------------------------------------------------------------- a pending budget in the client's portal

def portal_user_seen(portal, company, user) -> None:
    """The portal user `user` of `company` is known to the service (their first request records them)."""
    assert portal.get("/notifications/unread-count", company, user=user).status == 200


def pending_budget_notices(db, company, user) -> list:
    """The `portal_budget_pending` notices of portal user `user` of `company`."""
    db.expire_all()
    return db.scalars(select(PortalNotification).where(
        PortalNotification.company_id == company.id, PortalNotification.portal_user_id == user,
        PortalNotification.type == "portal_budget_pending")).all()


def line_item_writes(api, user, budget, line, other) -> dict:
    """Each kind of line-item change of `budget` once, as `user`: an add, an edit of `line`, a reorder of `line` and
    `other`, the removal of `other` (the frozen-lines tests: approved, cancelled). Answers {kind: response}."""
    path = f"/api/budgets/{budget.id}"
    return {
        "add": api.post(f"{path}/line-items", as_=user, json={"description": "Extra", "quantity": 1, "unit_price": 5000}),
        "edit": api.put(f"{path}/line-items/{line.id}", as_=user, json={"unit_price": 90000}),
        "reorder": api.put(f"{path}/line-items/reorder", as_=user, json={"item_ids": [other.id, line.id]}),
        "remove": api.delete(f"{path}/line-items/{other.id}", as_=user),
    }
