"""The portal's budgets: those linked to the company's projects or deals (group-aware list), the detail with
line items, and the client's approval of a budget pending approval."""
from __future__ import annotations

from .queries import deal_ids, project_ids


def list_budgets(ctx) -> list[dict]:
    from chalicelib.areas.budgets import service as budgets_service

    ids = ctx.portal.company_ids
    return budgets_service.portal_budgets(ctx.db, project_ids(ids), deal_ids(ids))


def budget_detail(ctx, *, budget_id: str) -> tuple[dict, list[dict]]:
    from chalicelib.areas.budgets import service as budgets_service

    ids = [ctx.portal.company_id]
    return budgets_service.portal_budget(ctx.db, budget_id, project_ids(ids), deal_ids(ids))


def approve_budget(ctx, *, budget_id: str) -> None:
    from chalicelib.areas.budgets import service as budgets_service

    ids = [ctx.portal.company_id]
    approver = f"portal:{ctx.portal.user_id}" if ctx.portal.user_id else "portal"
    budgets_service.portal_approve(ctx, budget_id=budget_id, project_ids=project_ids(ids), deal_ids=deal_ids(ids),
                                   approver=approver)
