"""Budgets (tool `budgets`: view reads, update creates and edits, manage deletes)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint

from . import service
from .schemas import BudgetCreate, BudgetQuery, BudgetUpdate, LineItemCreate, LineItemReorder, LineItemUpdate

bp = Blueprint(__name__)


@bp.route("/api/budgets", methods=["GET"])
@endpoint(tool="budgets", level="view", query=BudgetQuery)
def list_budgets(ctx, query: BudgetQuery):
    """List budgets (filters: resource_type, resource_id, company_id, status)"""
    return service.list_budgets(ctx, query=query)


@bp.route("/api/budgets", methods=["POST"])
@endpoint(tool="budgets", level="update", body=BudgetCreate, status=201)
def create_budget(ctx, body: BudgetCreate):
    """Create a budget"""
    return service.create_budget(ctx, data=body)


@bp.route("/api/budgets/{budget_id}", methods=["GET"])
@endpoint(tool="budgets", level="view")
def get_budget(ctx, budget_id: str):
    """A budget with its line items and time entries"""
    return service.get_budget(ctx, budget_id=budget_id)


@bp.route("/api/budgets/{budget_id}", methods=["PUT"])
@endpoint(tool="budgets", level="update", body=BudgetUpdate)
def update_budget(ctx, budget_id: str, body: BudgetUpdate):
    """Update a budget"""
    return service.update_budget(ctx, budget_id=budget_id, data=body)


@bp.route("/api/budgets/{budget_id}", methods=["DELETE"])
@endpoint(tool="budgets", level="manage")
def delete_budget(ctx, budget_id: str):
    """Delete a budget"""
    return service.delete_budget(ctx, budget_id=budget_id)


@bp.route("/api/budgets/{budget_id}/line-items", methods=["POST"])
@endpoint(tool="budgets", level="update", body=LineItemCreate, status=201)
def add_line_item(ctx, budget_id: str, body: LineItemCreate):
    """Add a line item to a budget"""
    return service.add_line_item(ctx, budget_id=budget_id, data=body)


@bp.route("/api/budgets/{budget_id}/line-items/reorder", methods=["PUT"])
@endpoint(tool="budgets", level="update", body=LineItemReorder)
def reorder_line_items(ctx, budget_id: str, body: LineItemReorder):
    """Reorder a budget's line items"""
    return service.reorder_line_items(ctx, budget_id=budget_id, item_ids=body.item_ids)


@bp.route("/api/budgets/{budget_id}/line-items/{line_item_id}", methods=["PUT"])
@endpoint(tool="budgets", level="update", body=LineItemUpdate)
def update_line_item(ctx, budget_id: str, line_item_id: str, body: LineItemUpdate):
    """Update a line item"""
    return service.update_line_item(ctx, budget_id=budget_id, item_id=line_item_id, data=body)


@bp.route("/api/budgets/{budget_id}/line-items/{line_item_id}", methods=["DELETE"])
@endpoint(tool="budgets", level="update")
def remove_line_item(ctx, budget_id: str, line_item_id: str):
    """Remove a line item"""
    return service.remove_line_item(ctx, budget_id=budget_id, item_id=line_item_id)


@bp.route("/api/projects/{project_id}/profitability", methods=["GET"])
@endpoint(tool="projects", level="view")
def get_profitability(ctx, project_id: str):
    """Budget, hours, team and invoicing totals of a project"""
    return service.project_profitability(ctx, project_id=project_id)
