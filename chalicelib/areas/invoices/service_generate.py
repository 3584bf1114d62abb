"""Generation of an invoice's lines from its budget, by budget type (decisions.md section 9):

- sprints, retainer: the budget's line items copied at their amounts; a retainer budget is invoiced once
  (a second invoice that is not voided is a 409);
- time_and_materials: per budget line item, the approved, billable time entries not yet invoiced (hours
  x the line's unit price); the entries are linked to the new line (`invoice_time_entries`, one row per
  entry), so they are never billed twice;
- fixed_price: the budget's amount not yet invoiced (its total, or the sum of its lines, less the
  subtotals of its invoices that are not voided, one below zero counted as 0) as one line.

Generations of one budget are serialised (a transaction-scoped lock on the budget's key), so two at once
cannot bill the same time or the same remainder; the entry links' primary key is the last guard.

The retainer and fixed-price rules hold for every invoice that is live (not voided) on a budget, whatever made it
live there: a hand-made create naming a budget, an update that takes an invoice out of `voided` or moves a live one
onto another budget run `check_live_on_budget`, under the same lock.

A cancelled budget (decisions.md section 9) bills nothing more: a generation from it, and any invoice becoming live on
it by hand (the same paths), are a 409 (`check_not_cancelled`, session 31). What it billed before stays.
"""
from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from sqlalchemy import case, func, select

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict
from chalicelib.core.locks import insert_rows, lock_key
from chalicelib.core.money import cents, line_amount
from chalicelib.core.schemas import MONEY_LIMIT
from chalicelib.core.serialize import value_out

from .models import Invoice, InvoiceLineItem, InvoiceTimeEntry
from .service_checks import wrong_currency
from .service_lines import recalculate

ENTITY = "invoice"


def _lines(ctx, invoice: Invoice, rows: list[dict]) -> list[dict]:
    for position, row in enumerate(rows):
        row.update(invoice_id=invoice.id, position=position, amount=line_amount(row["quantity"], row["unit_price"]))
    return insert_rows(ctx.db, InvoiceLineItem, rows)  # one statement


def _live_invoices_of(db, budget_id: str, invoice_id: str | None):
    """The WHERE of the budget's invoices that are not voided, other than `invoice_id` (None: an invoice not made)."""
    live = (Invoice.budget_id == budget_id, Invoice.status != "voided")
    return live if invoice_id is None else (*live, Invoice.id != invoice_id)


def _billed():
    """The sum of the subtotals that count against a fixed price: each invoice's subtotal, or 0 when it is below zero
    (an invoice made before totals below zero were refused, session 28: the ledger approves none, so it bills nothing
    and must not raise what is left to bill)."""
    return func.coalesce(func.sum(case((Invoice.subtotal > 0, Invoice.subtotal), else_=0)), 0)


def _price(budget: dict, items: list[dict]) -> Decimal:
    """A fixed-price budget's price: its total_amount, or, when it has none, the sum of its line amounts."""
    whole = budget["total_amount"]
    if whole is None:
        whole = sum((Decimal(item["amount"]) for item in items), Decimal("0"))
    return Decimal(whole)


def becomes_live_on(changes: dict, invoice: Invoice) -> str | None:
    """The budget an update makes the invoice live on, which `check_live_on_budget` must check: the invoice names a
    budget after the update, is not voided after it, and either leaves `voided` or moves onto another budget
    (`budget_id` changed). None otherwise (an edit of a live invoice that stays on its budget, anything voided)."""
    budget_id = changes["budget_id"] if "budget_id" in changes else invoice.budget_id
    status = changes.get("status") or invoice.status
    if budget_id and status != "voided" and (invoice.status == "voided" or budget_id != invoice.budget_id):
        return budget_id
    return None


def check_not_cancelled(budget: dict | None) -> None:
    """409 when the budget (invoice_source's `budget`; None: deleted meanwhile, left to the write's key) is cancelled:
    an invoice generated from it, or becoming live on it by hand, would bill the client for an engagement called off.
    The way out is the budget's status (set it back first); invoices it has keep their moves (session 31,
    docs/decisions/invoices.md)."""
    from chalicelib.areas.budgets import service as budgets_service  # another area: imported lazily

    if budget is not None and budget["status"] == budgets_service.CANCELLED:
        raise Conflict("The budget is cancelled: nothing more is invoiced on it (set its status back first)")


def check_live_on_budget(ctx, budget_id: str, *, invoice_id: str | None = None,
                         subtotal: Decimal = Decimal("0")) -> None:
    """409 before anything is written when an invoice becoming live (not voided) on the budget by hand would break
    what generation keeps: a retainer budget has at most one invoice that is not voided; a fixed-price budget's
    invoices that are not voided bill at most its price (the invoice's own `subtotal`, when above zero, must fit in
    the price less the subtotals of the budget's OTHER invoices that are not voided); and a cancelled budget takes no
    invoice at all (check_not_cancelled, any type). `invoice_id`: the invoice updated (None: a create, not made yet).
    Budgets of other types (and a budget deleted meanwhile) are not checked further.
    Under the lock generation takes (the budget's key, held until commit), so an un-void and a generation at once
    cannot both pass; the caller takes it after any row generation takes first (the invoice number counter).
    Statements: the budget and its lines (budgets' invoice_source), then, for a retainer or a fixed price, the lock
    and one grouped read of the other invoices."""
    from chalicelib.areas.budgets import service as budgets_service

    source = budgets_service.invoice_source(ctx.db, budget_id)
    check_not_cancelled(source and source["budget"])
    kind = source and source["budget"]["budget_type"]
    if kind not in ("retainer", "fixed_price"):
        return
    lock_key(ctx.db, "invoice-generation", budget_id)
    others, billed = ctx.db.execute(select(func.count(Invoice.id), _billed())
                                    .where(*_live_invoices_of(ctx.db, budget_id, invoice_id))).one()
    if kind == "retainer" and others:
        raise Conflict("A retainer budget can be invoiced only once: it has another invoice that is not voided "
                       "(void that one first)")
    if kind == "fixed_price":
        budget = source["budget"]
        left = cents(_price(budget, source["items"]) - Decimal(billed or 0))
        if subtotal > 0 and subtotal > left:
            raise Conflict(f"The invoice's subtotal ({cents(subtotal)}) is more than is left of the budget's fixed "
                           f"price ({max(left, cents(Decimal('0')))} {budget['currency']}): its invoices that are not "
                           "voided would bill more than its price")


def check_type_change(db, budget_id: str, kind: str, price: Decimal, currency: str) -> None:
    """For budgets' update (the budget's row locked FOR UPDATE: an invoice being written on it holds the row FOR KEY
    SHARE, its foreign key's or `held_currency`'s, so it is waited for and counted, and one after waits): 409 when the
    budget becoming `kind` would break the rule of that type for the invoices it has that are not voided, the rules
    `check_live_on_budget` keeps for an invoice made live: a retainer has at most one; a fixed price (`price`: the
    budget's total_amount after the update, or the sum of its lines) is at least what they bill (session 31). Other
    types have no such rule. One grouped statement."""
    if kind not in ("retainer", "fixed_price"):
        return
    count, billed = db.execute(select(func.count(Invoice.id), _billed())
                               .where(*_live_invoices_of(db, budget_id, None))).one()
    if kind == "retainer" and count > 1:
        raise Conflict(f"The budget has {count} invoices that are not voided: a retainer is invoiced once, so it "
                       "cannot become a retainer (void all but one first)")
    if kind == "fixed_price" and cents(Decimal(billed or 0)) > cents(price):
        raise Conflict(f"The budget's invoices that are not voided bill {cents(Decimal(billed))} {currency}, more than "
                       f"its fixed price would be ({cents(price)} {currency}): it cannot become a fixed price (raise its "
                       "total_amount in the same request, or void invoices first)")


def generate_from_budget(ctx, invoice: Invoice, *, budget_currency: bool = False) -> None:
    """`budget_currency`: the invoice takes the budget's currency (the create named none). Otherwise the invoice's
    currency must be the budget's (400 naming `currency`): the lines copy the budget's amounts, which are in its
    money (a USD budget generated as a GBP invoice billed 1000 GBP for 1000 USD of work)."""
    from chalicelib.areas.budgets import service as budgets_service

    lock_key(ctx.db, "invoice-generation", invoice.budget_id)
    source = budgets_service.invoice_source(ctx.db, invoice.budget_id)
    budget, items = source["budget"], source["items"]
    kind = budget["budget_type"]
    if not invoice.company_id and budget["company_id"]:
        invoice.company_id = budget["company_id"]
    if budget_currency:
        invoice.currency = budget["currency"]
    elif invoice.currency != budget["currency"]:
        raise wrong_currency(budget["currency"], generated=True)
    check_not_cancelled(budget)  # after the 400 of its currency, before anything is billed
    if kind in ("sprints", "retainer"):
        if kind == "retainer" and ctx.db.scalar(
                select(Invoice.id).where(*_live_invoices_of(ctx.db, budget["id"], invoice.id)).limit(1)):
            raise Conflict("A retainer budget can be invoiced only once")
        rows = [{"description": item["description"], "quantity": item["quantity"], "unit_price": item["unit_price"],
                 "service_type_id": item["service_type_id"], "budget_line_item_id": item["id"]} for item in items]
        if not rows:
            raise Conflict("The budget has no line items to invoice")
        _lines(ctx, invoice, rows)
        detail = {"budget_type": kind, "lines": len(rows)}
    elif kind == "time_and_materials":
        detail = _time_and_materials(ctx, invoice, budget, items)
    elif kind == "fixed_price":
        detail = _fixed_price(ctx, invoice, budget, items)
    else:
        raise BadRequest("The budget has no budget_type to generate from",
                         details=[{"field": "budget_id", "message": "the budget needs a budget_type"}])
    ctx.db.flush()
    recalculate(ctx.db, invoice, ("budget_id",))
    history.record(ctx.db, entity_type=ENTITY, entity_id=invoice.id, action="generated_from_budget",
                   actor_id=ctx.user_id, changes={"budget_id": budget["id"], **detail,
                                                  "total": value_out(invoice.total)})


def _time_and_materials(ctx, invoice: Invoice, budget: dict, items: list[dict]) -> dict:
    from chalicelib.areas.timesheets import service as timesheets_service

    entries = timesheets_service.approved_billable_entries(ctx.db, budget["id"],
                                                           exclude=select(InvoiceTimeEntry.time_entry_id))
    by_item: dict[str, list] = defaultdict(list)
    for entry in entries:
        by_item[entry.line_item_id].append(entry)
    rows, links = [], []
    for item in items:
        billed = by_item.get(item["id"])
        if not billed:
            continue
        hours = sum((Decimal(entry.hours) for entry in billed), Decimal("0"))
        rows.append({"description": item["description"], "quantity": hours, "unit_price": item["unit_price"],
                     "service_type_id": item["service_type_id"], "budget_line_item_id": item["id"]})
        links.append([entry.id for entry in billed])
    if not rows:
        raise Conflict("The budget has no approved time left to invoice")
    made = _lines(ctx, invoice, rows)
    insert_rows(ctx.db, InvoiceTimeEntry, [{"time_entry_id": entry_id, "invoice_id": invoice.id,
                                            "line_item_id": line["id"]}
                                           for line, ids in zip(made, links) for entry_id in ids])
    return {"budget_type": "time_and_materials", "lines": len(rows),
            "time_entries": sum(len(ids) for ids in links)}


def _fixed_price(ctx, invoice: Invoice, budget: dict, items: list[dict]) -> dict:
    whole = _price(budget, items)
    invoiced = ctx.db.scalar(select(_billed())
                             .where(*_live_invoices_of(ctx.db, budget["id"], invoice.id)))
    remaining = cents(Decimal(whole) - Decimal(invoiced or 0))
    # a price of zero (a free engagement) is billed once, by a line of 0.00: the accept of a free proposal makes
    # its invoice as any other (document 2; the company's first invoice); nothing else is left to invoice
    free_once = remaining == 0 and cents(whole) == 0 and ctx.db.scalar(
        select(Invoice.id).where(*_live_invoices_of(ctx.db, budget["id"], invoice.id)).limit(1)) is None
    if remaining <= 0 and not free_once:
        raise Conflict("Nothing of the fixed price is left to invoice")
    if remaining >= MONEY_LIMIT:  # a unit price (Numeric(14, 2)) cannot hold it
        raise BadRequest("The budget's fixed price is too large for one invoice line",
                         details=[{"field": "budget_id", "message": f"the amount left must be below {MONEY_LIMIT:,}"}])
    label = "remaining fixed price" if invoiced else "fixed price"
    _lines(ctx, invoice, [{"description": f"{budget['name']}: {label}", "quantity": Decimal("1"),
                           "unit_price": remaining, "service_type_id": None, "budget_line_item_id": None}])
    return {"budget_type": "fixed_price", "lines": 1, "remaining": value_out(remaining)}
