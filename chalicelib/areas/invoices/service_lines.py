"""Invoice line items: add, update, remove, reorder, and the totals every line change recalculates.

Totals (docs/decisions/invoices.md), as the ledger (Xero) computes them: each line's amount = quantity x
unit_price rounded half up to the cent; subtotal = the sum of the line amounts; tax = the sum of each line's 10%
GST rounded half up to the cent (none on a line of a GST-free tax type: core.money.line_gst); total = subtotal + tax. All in Decimal, never a float. A line amount or
totals of TOTAL_LIMIT or more in size (answered as JSON numbers, exact only below it), and totals below zero (no
ledger approves such an invoice: a credit note's job), are a 400 naming the fields that made them (a 409 on a
removal), before anything is kept.
"""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import func, select

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_row, reorder
from chalicelib.core.lookup import list_items_among
from chalicelib.core.money import cents, line_amount, line_gst
from chalicelib.core.serialize import row_dict, value_out

from .models import Invoice, InvoiceLineItem
from .queries import ITEM_FIELDS, LINE_ITEM_LIMIT, item_records, item_rows, load_invoice, load_line_item

ENTITY = "invoice"
# Every amount is answered as a JSON number, read as a binary double: a double holds every amount to the cent
# distinctly (and reads back as written) only below 2^46 (70,368,744,177,664: above it doubles are 1/64 apart, so
# 89,220,589,875,263.41 was answered .42). A line amount, the subtotal and the total stay below 7 x 10^13 (session 28;
# the columns, Numeric(16, 2), would hold 10^14).
TOTAL_LIMIT = Decimal(7) * Decimal(10) ** 13


def totals_of(lines) -> tuple[Decimal, Decimal, Decimal]:
    """(subtotal, tax, total) of the lines' `(amount, tax_type)` (amounts in cents): the rule of the module
    docstring. GST is taken on each line and rounded there, as Xero does ("Rounding in Xero"): three lines of 0.05
    carry 0.01 of tax each, 0.03 in all, not 10% of 0.15 rounded to 0.02; a line of a GST-free tax type
    (core.money.GST_FREE_TAX_TYPES: EXEMPTEXPORT, ...) carries none, as in the ledger."""
    lines = [(cents(amount), tax_type) for amount, tax_type in lines]
    subtotal = sum((amount for amount, _ in lines), Decimal("0"))
    tax = sum((line_gst(amount, tax_type) for amount, tax_type in lines), Decimal("0"))
    return subtotal, tax, subtotal + tax


def recalculate(db, invoice: Invoice, fields: tuple[str, ...] = ("quantity", "unit_price"), *,
                removal: bool = False) -> None:
    """Subtotal, tax and total of the invoice from its line items (one statement: at most 500 amounts), checked
    before anything is kept (the caller's transaction is rolled back with the error): a line amount, the subtotal or
    the total of TOTAL_LIMIT or more in size, or a subtotal or total below zero (discount lines may take it down to
    zero, not further: the ledger approves no invoice below zero), is a 400 naming `fields` (the request's fields
    that made them), or a 409 on a `removal` (a line removed: no field of the request made it). A change that leaves
    the totals as stored is not checked: an invoice made before these bounds (session 28) keeps its lines editable."""
    lines = db.execute(select(InvoiceLineItem.amount, InvoiceLineItem.tax_type)
                       .where(InvoiceLineItem.invoice_id == invoice.id)).all()
    subtotal, tax, total = totals_of(lines)
    if (subtotal, total) != (invoice.subtotal, invoice.total):
        _check_bounds(lines, subtotal, total, fields, removal)
    invoice.subtotal, invoice.tax, invoice.total = subtotal, tax, total
    if not invoice.ledger_invoice_id:
        invoice.amount_due = invoice.total - (invoice.amount_paid or 0)
    invoice.updated_at = utcnow()


def _check_bounds(lines, subtotal: Decimal, total: Decimal, fields: tuple[str, ...], removal: bool) -> None:
    largest = max((abs(cents(amount)) for amount, _ in lines), default=Decimal("0"))
    if max(largest, abs(subtotal), abs(total)) >= TOTAL_LIMIT:
        _refuse(removal, fields, "The invoice's total would be too large",
                f"a line's amount and the invoice's total must stay below {TOTAL_LIMIT:,} in size")
    if min(subtotal, total) < 0:
        _refuse(removal, fields, "The invoice's total would be below zero (a refund is a credit note in the ledger)",
                "the invoice's total must not be below zero: discount lines may take it down to zero, not further")


def _refuse(removal: bool, fields: tuple[str, ...], message: str, detail: str):
    if removal:
        raise Conflict(f"{message}: change or remove the other lines first")
    raise BadRequest(message, details=[{"field": field, "message": detail} for field in fields])


def locked_invoice(ctx, invoice_id: str) -> Invoice:
    """The visible invoice, locked for the rest of the transaction: line changes and their totals, and
    status moves, happen one request at a time per invoice. 404 when it was deleted while the lock was awaited."""
    load_invoice(ctx, invoice_id)
    invoice = lock_row(ctx.db, Invoice, invoice_id, missing="Invoice")
    return invoice


def check_not_in_ledger(invoice: Invoice) -> None:
    """The lines of an invoice in the ledger are the ledger invoice's (pushed, or linked by hand): 409 on any line
    change while it is linked, so the totals here never part from the ledger's. A ledger draft deleted in the
    ledger (`ledger-delete`) makes the invoice a local draft again, with editable lines."""
    if invoice.ledger_invoice_id:
        raise Conflict("The invoice is in the ledger: its lines cannot change (delete the ledger draft, or void it "
                       "and make a new invoice)")


# Local statuses whose lines (and so totals) are money already billed to the client (approved: authorised, issued;
# sent; paid: collected) or cancelled (voided: its subtotal comes back into the fixed price left to bill when it is
# set back): no line changes, in the ledger or not (session 22, docs/decisions/invoices.md "Lines of an issued
# invoice"). `draft` and `finalised` (not issued yet) stay editable, as does the draft a generation writes lines in.
LINES_FROZEN = ("approved", "sent", "paid", "voided")


def check_lines_open(invoice: Invoice) -> None:
    """409 on a line change (add, edit, remove, reorder) of an invoice in the ledger (check_not_in_ledger) or whose
    local status is LINES_FROZEN: its totals feed the project's profitability, the portal's totals and the fixed
    price left to bill as money billed or collected. The way out is its status: set it back to `draft` first
    (update, recorded in history)."""
    check_not_in_ledger(invoice)
    if invoice.status in LINES_FROZEN:
        raise Conflict(f"The invoice is {invoice.status}: its lines cannot change (set its status back to draft "
                       "first, or make a new invoice)")


def check_service_type(ctx, service_type_id: str | None, field: str = "service_type_id") -> None:
    if not service_type_id:
        return
    if not list_items_among(ctx.db, "service_type", [service_type_id]):
        raise BadRequest("Invalid line item references",
                         details=[{"field": field, "message": "must be an item of the service_type list"}])


def _count(db, invoice_id: str) -> int:
    return db.scalar(select(func.count(InvoiceLineItem.id)).where(InvoiceLineItem.invoice_id == invoice_id)) or 0


def _next_position(db, invoice_id: str) -> int:
    last = db.scalar(select(func.max(InvoiceLineItem.position)).where(InvoiceLineItem.invoice_id == invoice_id))
    return 0 if last is None else last + 1


def _item_out(ctx, item: InvoiceLineItem) -> dict:
    return item_records(item_rows(ctx.db, item.invoice_id, item.id))[0]


def add_line_item(ctx, *, invoice_id: str, data) -> dict:
    """At most LINE_ITEM_LIMIT (500) line items per invoice: 409 beyond. Without `position` the item goes
    last. Totals recalculated."""
    invoice = locked_invoice(ctx, invoice_id)
    check_lines_open(invoice)
    if _count(ctx.db, invoice.id) >= LINE_ITEM_LIMIT:
        raise Conflict(f"An invoice holds at most {LINE_ITEM_LIMIT} line items")
    values = data.model_dump()
    check_service_type(ctx, values.get("service_type_id"))
    if values.get("position") is None:
        values["position"] = _next_position(ctx.db, invoice.id)
    item = InvoiceLineItem(invoice_id=invoice.id, **values, amount=line_amount(values["quantity"], values["unit_price"]))
    ctx.db.add(item)
    ctx.db.flush()
    recalculate(ctx.db, invoice)
    history.record(ctx.db, entity_type=ENTITY, entity_id=invoice.id, action="line_item_added", actor_id=ctx.user_id,
                   changes={"item_id": item.id, "description": item.description, "amount": value_out(item.amount),
                            "total": value_out(invoice.total)})
    ctx.db.flush()
    return _item_out(ctx, item)


def update_line_item(ctx, *, invoice_id: str, item_id: str, data) -> dict:
    """A line sent back unchanged writes nothing: no `line_item_updated` entry, no recalculation, neither the line
    nor the invoice touched (session 22, docs/decisions/invoices.md "Line items sent back unchanged"), and is not
    refused when the invoice's lines are frozen (session 32)."""
    invoice = locked_invoice(ctx, invoice_id)
    item = load_line_item(ctx, invoice.id, item_id)
    changes = data.changes()  # a null position is a 400 (NOT_NULL)
    fields = [field for field in ITEM_FIELDS if field != "updated_at"]
    before = row_dict(item, fields)
    for key, value in changes.items():
        setattr(item, key, value)
    item.amount = line_amount(item.quantity, item.unit_price)
    changed = history.diff(before, row_dict(item, fields))
    if not changed:  # sent back unchanged (the whole row as read): no entry, no UPDATE, totals and invoice untouched;
        # also on an invoice whose lines are frozen, as budgets' lines (session 32: a 409 for a row saved back as read)
        return _item_out(ctx, item)
    check_lines_open(invoice)  # a change: refused before anything is written (nothing flushed yet)
    if changes.get("service_type_id") != before["service_type_id"]:
        check_service_type(ctx, changes.get("service_type_id"))
    item.updated_at = utcnow()
    ctx.db.flush()
    recalculate(ctx.db, invoice, tuple(f for f in ("quantity", "unit_price") if f in changes) or ("quantity",))
    history.record(ctx.db, entity_type=ENTITY, entity_id=invoice.id, action="line_item_updated",
                   actor_id=ctx.user_id, changes={"item_id": item.id, **changed, "total": value_out(invoice.total)})
    ctx.db.flush()
    return _item_out(ctx, item)


def delete_line_item(ctx, *, invoice_id: str, item_id: str) -> None:
    """Removes the line (time entries it billed become billable again: their links cascade)."""
    invoice = locked_invoice(ctx, invoice_id)
    check_lines_open(invoice)
    item = load_line_item(ctx, invoice.id, item_id)
    description, amount = item.description, value_out(item.amount)
    ctx.db.delete(item)
    ctx.db.flush()
    recalculate(ctx.db, invoice, removal=True)
    history.record(ctx.db, entity_type=ENTITY, entity_id=invoice.id, action="line_item_removed",
                   actor_id=ctx.user_id, changes={"item_id": item_id, "description": description, "amount": amount,
                                                  "total": value_out(invoice.total)})
    ctx.db.flush()


def reorder_line_items(ctx, *, invoice_id: str, item_ids: list[str]) -> None:
    """Each named item's position = its index, every id an item of this invoice named once (400 before any
    write: all or nothing), under the invoice's lock (one reorder at a time)."""
    invoice = locked_invoice(ctx, invoice_id)
    check_lines_open(invoice)
    reorder(ctx.db, InvoiceLineItem, InvoiceLineItem.position, item_ids,
            parent=InvoiceLineItem.invoice_id == invoice.id, field="item_ids", what="line items of this invoice")
    invoice.updated_at = utcnow()
    history.record(ctx.db, entity_type=ENTITY, entity_id=invoice.id, action="line_items_reordered",
                   actor_id=ctx.user_id, changes={"item_ids": list(item_ids)})
    ctx.db.flush()

