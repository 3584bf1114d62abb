"""Invoices (tool `invoices`: view reads, update creates and edits, manage deletes and moves in the ledger)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, many, one, paged

from . import service, service_lines
from .schemas import (InvoiceCreate, InvoiceDetail, InvoiceListQuery, InvoiceRead, InvoiceUpdate, InvoiceLineItemCreate,
                      InvoiceLineItemRead, InvoiceLineItemReorder, InvoiceLineItemUpdate, MappingRuleRead, MappingRuleUpsert)

bp = Blueprint(__name__)


@bp.route("/api/invoices/mapping-rules", methods=["GET"])
@endpoint(tool="invoices", level="view", response=many("rules", MappingRuleRead))
def list_mapping_rules(ctx):
    """Mapping rules: service type to ledger account code, with service_type_name"""
    return {"rules": service.list_rules(ctx)}


@bp.route("/api/invoices/mapping-rules/{service_type_id}", methods=["PUT"])
@endpoint(tool="invoices", level="manage", body=MappingRuleUpsert, response=one("rule", MappingRuleRead))
def upsert_mapping_rule(ctx, service_type_id: str, body: MappingRuleUpsert):
    """Create or replace the mapping rule of a service type"""
    return {"rule": service.upsert_rule(ctx, service_type_id=service_type_id, data=body)}


@bp.route("/api/invoices", methods=["GET"])
@endpoint(tool="invoices", level="view", query=InvoiceListQuery, response=paged("invoices", InvoiceRead))
def list_invoices(ctx, query: InvoiceListQuery):
    """List invoices (filters: status, company_id, budget_id, project_id and deal_id through the budget;
    `limit` at most 500 and `offset`, with `total`)"""
    return service.list_invoices(ctx, query=query).body("invoices")


@bp.route("/api/invoices", methods=["POST"])
@endpoint(tool="invoices", level="update", body=InvoiceCreate, status=201, response=one("invoice", InvoiceRead))
def create_invoice(ctx, body: InvoiceCreate):
    """Create an invoice, optionally generating its lines from its budget (generate_from_budget)"""
    return {"invoice": service.create_invoice(ctx, data=body)}


@bp.route("/api/invoices/{invoice_id}", methods=["GET"])
@endpoint(tool="invoices", level="view", response=InvoiceDetail)
def get_invoice(ctx, invoice_id: str):
    """An invoice with its line items and payments; a ledger-linked invoice's status is read live"""
    invoice, line_items, payments = service.get_invoice(ctx, invoice_id=invoice_id)
    return {"invoice": invoice, "line_items": line_items, "payments": payments}


@bp.route("/api/invoices/{invoice_id}", methods=["PUT"])
@endpoint(tool="invoices", level="update", body=InvoiceUpdate, response=one("invoice", InvoiceRead))
def update_invoice(ctx, invoice_id: str, body: InvoiceUpdate):
    """Update an invoice"""
    return {"invoice": service.update_invoice(ctx, invoice_id=invoice_id, data=body)}


@bp.route("/api/invoices/{invoice_id}", methods=["DELETE"])
@endpoint(tool="invoices", level="manage", response=OkResponse)
def delete_invoice(ctx, invoice_id: str):
    """Delete an invoice (a ledger-linked one is deleted or voided in the ledger first)"""
    service.delete_invoice(ctx, invoice_id=invoice_id)
    return {"ok": True}


@bp.route("/api/invoices/{invoice_id}/line-items", methods=["POST"])
@endpoint(tool="invoices", level="update", body=InvoiceLineItemCreate, status=201, response=one("item", InvoiceLineItemRead))
def add_invoice_line_item(ctx, invoice_id: str, body: InvoiceLineItemCreate):
    """Add a line item (at most 500 per invoice); totals recalculated"""
    return {"item": service_lines.add_line_item(ctx, invoice_id=invoice_id, data=body)}


@bp.route("/api/invoices/{invoice_id}/line-items/reorder", methods=["PUT"])
@endpoint(tool="invoices", level="update", body=InvoiceLineItemReorder, response=OkResponse)
def reorder_invoice_line_items(ctx, invoice_id: str, body: InvoiceLineItemReorder):
    """Reorder an invoice's line items"""
    service_lines.reorder_line_items(ctx, invoice_id=invoice_id, item_ids=body.item_ids)
    return {"ok": True}


@bp.route("/api/invoices/{invoice_id}/line-items/{invoice_item_id}", methods=["PUT"])
@endpoint(tool="invoices", level="update", body=InvoiceLineItemUpdate, response=one("item", InvoiceLineItemRead))
def update_invoice_line_item(ctx, invoice_id: str, invoice_item_id: str, body: InvoiceLineItemUpdate):
    """Update a line item; amount and totals recalculated"""
    return {"item": service_lines.update_line_item(ctx, invoice_id=invoice_id, item_id=invoice_item_id, data=body)}


@bp.route("/api/invoices/{invoice_id}/line-items/{invoice_item_id}", methods=["DELETE"])
@endpoint(tool="invoices", level="update", response=OkResponse)
def delete_invoice_line_item(ctx, invoice_id: str, invoice_item_id: str):
    """Remove a line item; totals recalculated"""
    service_lines.delete_line_item(ctx, invoice_id=invoice_id, item_id=invoice_item_id)
    return {"ok": True}
