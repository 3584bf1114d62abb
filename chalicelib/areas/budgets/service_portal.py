"""Budgets in the client portal (the portal area calls these through budgets' service): the budgets linked to a
client's projects or deals, listed and read with client-safe fields, and a client's approval of a budget pending
it."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core import history
from chalicelib.core.errors import Conflict, NotFound
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_row
from chalicelib.core.serialize import value_out

from .models import Budget, BudgetLineItem
from .queries import ENTITY, LINE_ITEM_LIMIT, budget_readers

PORTAL_BUDGET_FIELDS = ("id", "name", "resource_type", "resource_id", "po_number", "currency", "status", "total_amount",
                        "budget_type", "forecast_date", "created_at", "updated_at")
PORTAL_ITEM_FIELDS = ("id", "description", "quantity", "unit_price", "amount", "position")


def _portal_scope(project_ids, deal_ids):
    """Budgets linked to these projects or deals (`project_ids`, `deal_ids`: SELECTs of ids) that have left `draft`
    (session 28: a budget staff are still drafting is not the client's to read yet; docs/decisions/portal.md)."""
    from sqlalchemy import and_, or_

    return and_(Budget.status != "draft",
                or_(and_(Budget.resource_type == "project", Budget.resource_id.in_(project_ids)),
                    and_(Budget.resource_type == "deal", Budget.resource_id.in_(deal_ids))))


def _portal_record(budget: Budget) -> dict:
    return {field: value_out(getattr(budget, field)) for field in PORTAL_BUDGET_FIELDS}


def portal_budgets(db, project_ids, deal_ids) -> list[dict]:
    """The budgets linked to these projects or deals, newest first, at most LIST_LIMIT (one query; client-safe
    fields: no internal notes, owner or spent figures)."""
    from chalicelib.core.query import LIST_LIMIT

    budgets = db.scalars(select(Budget).where(_portal_scope(project_ids, deal_ids))
                         .order_by(Budget.created_at.desc(), Budget.id).limit(LIST_LIMIT))
    return [_portal_record(b) for b in budgets]


def portal_budget_ids(project_ids, deal_ids):
    """A SELECT of the ids of the budgets linked to these projects or deals."""
    return select(Budget.id).where(_portal_scope(project_ids, deal_ids))


def portal_budget(db, budget_id: str, project_ids, deal_ids) -> tuple[dict, list[dict]]:
    """(budget, line items in the detail's order) of a budget linked to these projects or deals; 404 otherwise (two
    queries)."""
    budget = db.scalar(select(Budget).where(Budget.id == budget_id, _portal_scope(project_ids, deal_ids)))
    if budget is None:
        raise NotFound("Budget not found")
    items = db.scalars(select(BudgetLineItem).where(BudgetLineItem.budget_id == budget.id)
                       .order_by(BudgetLineItem.position, BudgetLineItem.created_at, BudgetLineItem.id)
                       .limit(LINE_ITEM_LIMIT))
    return _portal_record(budget), [{f: value_out(getattr(i, f)) for f in PORTAL_ITEM_FIELDS} for i in items]


def _approval_recipient(db, budget: Budget) -> str | None:
    """Who hears of the client's approval (session 25; users2 audit: an owner deactivated, or none, told nobody):
    the first of the budget's owner, then the delivery manager of its project (a deal's budget: the deal's owner),
    then the project's owner, who may read the budget (queries.budget_readers: active, `budgets:view`, the budget
    in their scope), else None. Three statements at most: the project's or deal's people (one), the readers among
    them all at once (two at most; a first-active pick is not enough here: an active owner outside the
    budget's scope is passed over too, and the readers' check already keeps the active only)."""
    if budget.resource_type == "project":
        from chalicelib.areas.projects import service as projects_service

        project = projects_service.project_brief(db, budget.resource_id) or {}
        people = (budget.owner_id, project.get("delivery_manager_id"), project.get("owner_id"))
    else:  # a deal's (a budget's resource_type is project or deal: schemas.ResourceType)
        from chalicelib.areas.deals import service as deals_service

        people = (budget.owner_id, (deals_service.deal_facts(db, budget.resource_id) or {}).get("owner_id"))
    ordered = list(dict.fromkeys(uid for uid in people if uid))
    if not ordered:
        return None
    may_read = budget_readers(db, budget.id, ordered)
    return next((uid for uid in ordered if uid in may_read), None)


def _hold_in_scope(db, budget: Budget, project_ids, deal_ids) -> None:
    """The budget's project or deal share-locked until the transaction ends (`SELECT ... FOR SHARE`), then the
    budget's scope checked again in a statement of its own (a fresh snapshot): 404 when the record is no longer one
    of the caller's companies' (session 25, the race with a move to another client). The scope of `lock_row` was
    read without a lock: a move of the record to client B (`update_project` / `update_deal`: FOR UPDATE, then
    budgets' `check_client_move` counts the approved budgets) went on beside the approval, and B's record held a
    budget A approved. Now a move in progress is waited for, and the approval then finds the record B's (404); a move
    that comes after waits for the approval and counts it (409). FOR SHARE, not FOR KEY SHARE: it also waits for an
    UPDATE of the record without a row lock first (FOR NO KEY UPDATE), which a key share lets through. Lock order:
    the budget's row, then its record's; the move takes the record's and counts the budgets without locking them,
    and no writer of a project or deal locks one of its budgets after it (no cycle). Two statements."""
    if budget.resource_type == "project":
        from chalicelib.areas.projects import service as projects_service  # another area: imported lazily

        model = projects_service.Project
    else:
        from chalicelib.areas.deals import service as deals_service  # another area: imported lazily

        model = deals_service.Deal
    db.execute(select(model.id).where(model.id == budget.resource_id).with_for_update(read=True))
    if db.scalar(select(Budget.id).where(Budget.id == budget.id, _portal_scope(project_ids, deal_ids))) is None:
        raise NotFound("Budget not found")


def portal_approve(ctx, *, budget_id: str, project_ids, deal_ids, approver: str) -> None:
    """A client approves a budget in `pending_approval` (409 from any other status; 404 outside the client's
    budgets): it moves to `approved` (decisions.md section 9), the approval is logged in history and one person
    is notified (`portal_budget_approved`): `_approval_recipient`, the first who may read the budget among its
    owner, its project's delivery manager (a deal's budget: the deal's owner) and its project's owner; none of them
    a reader, nobody. An owner who may not read it (their GET answers 404) is told nothing: the notice is about the
    budget, not about them (session 25: the next one is told instead)."""
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    budget = lock_row(ctx.db, Budget, budget_id, where=_portal_scope(project_ids, deal_ids), missing="Budget")
    _hold_in_scope(ctx.db, budget, project_ids, deal_ids)
    if budget.status != "pending_approval":
        raise Conflict(f"Only a budget pending approval can be approved (this one is {budget.status})")
    budget.status = "approved"
    budget.updated_at = utcnow()
    ctx.db.flush()
    history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="approved", actor_id=None,
                   changes={"status": {"from": "pending_approval", "to": "approved"}, "approved_by": approver})
    recipient = _approval_recipient(ctx.db, budget)
    if recipient:
        notify(ctx, user_id=recipient, type="portal_budget_approved",
               title=f"The client approved the budget {budget.name}", resource_type="budget",
               resource_id=budget.id, action_url=f"/budgets/{budget.id}")
