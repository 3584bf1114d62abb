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
