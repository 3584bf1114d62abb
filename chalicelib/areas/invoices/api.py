"""Invoices (tool `invoices`: view reads, update creates and edits, manage deletes and moves in the ledger)."""
from chalice import Blueprint, Rate

from chalicelib.core.http import endpoint, file_response
from chalicelib.core.schemas import OkResponse, many, one, paged

from . import jobs, service, service_ledger, service_ledger_sync, service_lines
from .schemas import (InvoiceBatchSyncRead, InvoiceCreate, InvoiceDetail, InvoiceLineItemCreate, InvoiceLineItemRead,
                      InvoiceLineItemReorder, InvoiceLineItemUpdate, InvoiceListQuery, InvoiceRead, InvoiceSyncRead,
                      InvoiceUpdate, LedgerPushRead, MappingRuleRead, MappingRuleUpsert)

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
@endpoint(tool="invoices", level="update", body=InvoiceUpdate, errors=(409, 502, 503, 504),
          response=one("invoice", InvoiceRead))
def update_invoice(ctx, invoice_id: str, body: InvoiceUpdate):
    """Update an invoice"""
    return {"invoice": service.update_invoice(ctx, invoice_id=invoice_id, data=body)}


@bp.route("/api/invoices/{invoice_id}", methods=["DELETE"])
@endpoint(tool="invoices", level="manage", errors=(502, 503, 504), response=OkResponse)  # the ledger's void
def delete_invoice(ctx, invoice_id: str):
    """Delete an invoice (a ledger-linked one is deleted or voided in the ledger first)"""
    service.delete_invoice(ctx, invoice_id=invoice_id)
    return {"ok": True}


@bp.route("/api/invoices/{invoice_id}/line-items", methods=["POST"])
@endpoint(tool="invoices", level="update", body=InvoiceLineItemCreate, status=201, errors=(409,),
          response=one("item", InvoiceLineItemRead))
def add_invoice_line_item(ctx, invoice_id: str, body: InvoiceLineItemCreate):
    """Add a line item (at most 500 per invoice); totals recalculated"""
    return {"item": service_lines.add_line_item(ctx, invoice_id=invoice_id, data=body)}


@bp.route("/api/invoices/{invoice_id}/line-items/reorder", methods=["PUT"])
@endpoint(tool="invoices", level="update", body=InvoiceLineItemReorder, errors=(409,), response=OkResponse)
def reorder_invoice_line_items(ctx, invoice_id: str, body: InvoiceLineItemReorder):
    """Reorder an invoice's line items"""
    service_lines.reorder_line_items(ctx, invoice_id=invoice_id, item_ids=body.item_ids)
    return {"ok": True}


@bp.route("/api/invoices/{invoice_id}/line-items/{invoice_item_id}", methods=["PUT"])
@endpoint(tool="invoices", level="update", body=InvoiceLineItemUpdate, errors=(409,),
          response=one("item", InvoiceLineItemRead))
def update_invoice_line_item(ctx, invoice_id: str, invoice_item_id: str, body: InvoiceLineItemUpdate):
    """Update a line item; amount and totals recalculated"""
    return {"item": service_lines.update_line_item(ctx, invoice_id=invoice_id, item_id=invoice_item_id, data=body)}


@bp.route("/api/invoices/{invoice_id}/line-items/{invoice_item_id}", methods=["DELETE"])
@endpoint(tool="invoices", level="update", errors=(409,), response=OkResponse)
def delete_invoice_line_item(ctx, invoice_id: str, invoice_item_id: str):
    """Remove a line item; totals recalculated"""
    service_lines.delete_line_item(ctx, invoice_id=invoice_id, item_id=invoice_item_id)
    return {"ok": True}


# --- the accounting ledger (service_ledger) -----------------------------------------------------------

@bp.route("/api/invoices/sync-ledger", methods=["POST"])
@endpoint(tool="invoices", level="update", errors=(503,), response=InvoiceBatchSyncRead)
def sync_all_with_ledger(ctx):
    """Batch sync of payment status, amounts paid and due and payments for every ledger-linked invoice, least recently
    synced first; `more` (1) when the request stopped starting ledger calls after its time: call again for the rest"""
    from chalicelib.core.timeutil import TimeBudget

    answer = service_ledger_sync.sync_all(ctx, trigger="request",
                                          budget=TimeBudget(service_ledger_sync.MANUAL_SYNC_SECONDS))
    return {**answer, "more": 1} if answer.get("more") else answer


@bp.route("/api/invoices/{invoice_id}/push-to-ledger", methods=["POST"])
@endpoint(tool="invoices", level="update", errors=(409, 502, 503, 504), response=LedgerPushRead)
def push_to_ledger(ctx, invoice_id: str):
    """Create a draft ledger invoice (company name as contact, account codes from mapping rules)"""
    invoice, ledger_invoice_id = service_ledger.push(ctx, invoice_id=invoice_id)
    return {"invoice": invoice, "ledger_invoice_id": ledger_invoice_id}


@bp.route("/api/invoices/{invoice_id}/ledger-approve", methods=["POST"])
@endpoint(tool="invoices", level="manage", errors=(409, 502, 503, 504), response=one("invoice", InvoiceRead))
def ledger_approve(ctx, invoice_id: str):
    """Authorise the ledger invoice (local status approved)"""
    return {"invoice": service_ledger.approve(ctx, invoice_id=invoice_id)}


@bp.route("/api/invoices/{invoice_id}/ledger-send", methods=["POST"])
@endpoint(tool="invoices", level="manage", errors=(409, 502, 503, 504), response=one("invoice", InvoiceRead))
def ledger_send(ctx, invoice_id: str):
    """E-mail the authorised ledger invoice to its contact (local status sent)"""
    return {"invoice": service_ledger.send(ctx, invoice_id=invoice_id)}


@bp.route("/api/invoices/{invoice_id}/ledger-void", methods=["POST"])
@endpoint(tool="invoices", level="manage", errors=(409, 502, 503, 504), response=one("invoice", InvoiceRead))
def ledger_void(ctx, invoice_id: str):
    """Void the ledger invoice (local status voided)"""
    return {"invoice": service_ledger.void(ctx, invoice_id=invoice_id)}


@bp.route("/api/invoices/{invoice_id}/ledger-delete", methods=["POST"])
@endpoint(tool="invoices", level="manage", errors=(409, 502, 503, 504), response=one("invoice", InvoiceRead))
def ledger_delete(ctx, invoice_id: str):
    """Delete the ledger draft; the ledger id is cleared (local status draft)"""
    return {"invoice": service_ledger.delete_draft(ctx, invoice_id=invoice_id)}


@bp.route("/api/invoices/{invoice_id}/pdf", methods=["GET"])
@endpoint(tool="invoices", level="view", response_content="application/pdf", errors=(404, 409, 429, 502, 503, 504))
def invoice_pdf(ctx, invoice_id: str):
    """The ledger's PDF of the invoice (binary; `Content-Disposition: attachment`); 429 `{ error, retry_after }` past
    the caller's hourly allowance of PDFs (60)"""
    number, body = service_ledger.pdf(ctx, invoice_id=invoice_id)
    safe = "".join(ch if (ch.isascii() and ch.isalnum()) or ch in "-_." else "_" for ch in number)
    disposition = f'attachment; filename="{safe}.pdf"'
    if safe != number:  # a header is ASCII: the name itself in RFC 6266's filename* (UTF-8, percent-encoded)
        from urllib.parse import quote

        disposition += f"; filename*=UTF-8''{quote(number + '.pdf', safe='')}"
    return file_response(ctx.request, body, 200, {"Content-Type": "application/pdf",
                                                  "Content-Disposition": disposition})


@bp.route("/api/invoices/{invoice_id}/sync-ledger", methods=["POST"])
@endpoint(tool="invoices", level="update", errors=(409, 502, 503, 504), response=InvoiceSyncRead)
def sync_with_ledger(ctx, invoice_id: str):
    """Sync one invoice's status, amounts and payments from the ledger; within a minute of its last ledger read (or
    attempt) the stored state is answered, the ledger not asked"""
    return service_ledger_sync.sync_one(ctx, invoice_id=invoice_id)


@bp.schedule(Rate(1, unit=Rate.HOURS))
def ledger_invoice_sync(event):
    """Hourly: sync every ledger-linked invoice's status, amounts and payments; records the run and its errors"""
    return jobs.ledger_invoice_sync()


@bp.schedule(Rate(1, unit=Rate.HOURS))
def invoice_overdue_scan(event):
    """Hourly: tell who manages each invoice newly past its due date (and its creator), once per due date"""
    return jobs.invoice_overdue_scan()
