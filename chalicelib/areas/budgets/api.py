"""Budgets (tool `budgets`: view reads, update creates and edits, manage deletes)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, one, paged

from . import service, service_line_items
from .schemas import (BudgetCreate, BudgetDetail, BudgetListQuery, BudgetRead, BudgetUpdate, LineItemCreate, LineItemRead,
                      LineItemReorder, LineItemUpdate, ProfitabilityRead)

bp = Blueprint(__name__)


@bp.route("/api/budgets", methods=["GET"])
@endpoint(tool="budgets", level="view", query=BudgetListQuery, response=paged("budgets", BudgetRead))
def list_budgets(ctx, query: BudgetListQuery):
    """List budgets (filters: resource_type, resource_id, company_id, status; `limit` at most 500 and
    `offset`, with `total`)"""
    return service.list_budgets(ctx, query=query).body("budgets")


@bp.route("/api/budgets", methods=["POST"])
@endpoint(tool="budgets", level="update", body=BudgetCreate, status=201, response=one("budget", BudgetRead))
def create_budget(ctx, body: BudgetCreate):
    """Create a budget"""
    return {"budget": service.create_budget(ctx, data=body)}


@bp.route("/api/budgets/{budget_id}", methods=["GET"])
@endpoint(tool="budgets", level="view", response=BudgetDetail)
def get_budget(ctx, budget_id: str):
    """A budget with its line items and its newest time entries (at most 500; `time_entries_total` counts them all)"""
    budget, line_items, time_entries, total = service.get_budget(ctx, budget_id=budget_id)
    return {"budget": budget, "line_items": line_items, "time_entries": time_entries, "time_entries_total": total}


@bp.route("/api/budgets/{budget_id}", methods=["PUT"])
@endpoint(tool="budgets", level="update", body=BudgetUpdate, errors=(409,), response=one("budget", BudgetRead))
def update_budget(ctx, budget_id: str, body: BudgetUpdate):
    """Update a budget"""
    return {"budget": service.update_budget(ctx, budget_id=budget_id, data=body)}


@bp.route("/api/budgets/{budget_id}", methods=["DELETE"])
@endpoint(tool="budgets", level="manage", response=OkResponse)
def delete_budget(ctx, budget_id: str):
    """Delete a budget"""
    service.delete_budget(ctx, budget_id=budget_id)
    return {"ok": True}


@bp.route("/api/budgets/{budget_id}/line-items", methods=["POST"])
@endpoint(tool="budgets", level="update", body=LineItemCreate, status=201, errors=(409,),
          response=one("item", LineItemRead))
def add_line_item(ctx, budget_id: str, body: LineItemCreate):
    """Add a line item to a budget (at most 500 per budget)"""
    return {"item": service_line_items.add_line_item(ctx, budget_id=budget_id, data=body)}


@bp.route("/api/budgets/{budget_id}/line-items/reorder", methods=["PUT"])
@endpoint(tool="budgets", level="update", body=LineItemReorder, errors=(409,), response=OkResponse)
def reorder_line_items(ctx, budget_id: str, body: LineItemReorder):
    """Reorder a budget's line items"""
    service_line_items.reorder_line_items(ctx, budget_id=budget_id, item_ids=body.item_ids)
    return {"ok": True}


@bp.route("/api/budgets/{budget_id}/line-items/{line_item_id}", methods=["PUT"])
@endpoint(tool="budgets", level="update", body=LineItemUpdate, errors=(409,), response=one("item", LineItemRead))
def update_line_item(ctx, budget_id: str, line_item_id: str, body: LineItemUpdate):
    """Update a line item"""
    return {"item": service_line_items.update_line_item(ctx, budget_id=budget_id, item_id=line_item_id, data=body)}


@bp.route("/api/budgets/{budget_id}/line-items/{line_item_id}", methods=["DELETE"])
@endpoint(tool="budgets", level="update", errors=(409,), response=OkResponse)
def remove_line_item(ctx, budget_id: str, line_item_id: str):
    """Remove a line item"""
    service_line_items.delete_line_item(ctx, budget_id=budget_id, item_id=line_item_id)
    return {"ok": True}


@bp.route("/api/projects/{project_id}/profitability", methods=["GET"])
@endpoint(tool="projects", level="view", response=ProfitabilityRead)
def get_profitability(ctx, project_id: str):
    """Budget, hours, team and invoicing totals of a project"""
    return service.project_profitability(ctx, project_id=project_id)
