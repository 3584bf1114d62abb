"""Budget line items: add, update, remove, reorder. Every line item write locks the budget's row first (its
parent), then the item's; a line's amount is core.money.line_amount (quantity x unit_price, to the cent, half up);
each change is recorded in the budget's history (entity_type `budget`). Called by api.py; service.py holds the
budget itself."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_row, reorder
from chalicelib.core.lookup import list_items_among
from chalicelib.core.money import line_amount
from chalicelib.core.schemas import MONEY_LIMIT
from chalicelib.core.serialize import row_dict, value_out

from .models import CANCELLED, Budget, BudgetLineItem
from .queries import ENTITY, ITEM_FIELDS, LINE_ITEM_LIMIT, item_records, item_rows, line_item_totals, load_budget


# `approved` is the client's approval, given in the portal (only `service.portal_approve` records it); it covers
# these amounts: while the budget is `approved` they do not change (session 22, docs/decisions/budgets.md "What the
# client approved").
CLIENT_APPROVED = "approved"
APPROVED_MONEY = ("total_amount", "currency")


def check_approval_kept(budget: Budget, changes: dict | None = None, *, what: str = "its line items") -> None:
    """409 while the budget (its row locked and re-read by the caller) is `approved` by the client: a change of its
    line items (`changes` None: an add, edit that changes a value, removal or reorder), or of `total_amount` or
    `currency` (`changes`: a budget update's; a value sent unchanged passes, as does a request that moves the status
    out of approved with it). The portal shows the budget approved beside its amounts: they must be the ones the
    client approved. The way out: set the status back (draft, or pending_approval to ask the client again)."""
    if budget.status != CLIENT_APPROVED:
        return
    if changes is not None:
        if changes.get("status", CLIENT_APPROVED) != CLIENT_APPROVED:
            return  # moved out of approved by the same request
        changed = [field for field in APPROVED_MONEY if field in changes and changes[field] != getattr(budget, field)]
        if not changed:
            return
        what = f"its {' and '.join(changed)}"
    raise Conflict(f"The client approved this budget: {what} cannot change while it is approved (set its status "
                   "back to draft or pending_approval first, in the same request for total_amount or currency)")


def check_lines_open(budget: Budget, *, what: str = "its line items") -> None:
    """409 on a line item change (an add, an edit that changes a value, a removal or a reorder) of a budget (its row
    locked and re-read by the caller) that the client approved (check_approval_kept) or that is cancelled: the record
    of what was called off, and of what its invoices billed from its lines, does not change after the fact. The way
    out: set its status back first."""
    check_approval_kept(budget, what=what)
    if budget.status == CANCELLED:
        raise Conflict(f"The budget is cancelled: {what} cannot change (set its status back first)")


# A line's amount and the sum of a budget's lines stay below 10^12 in size, as its total_amount (core Money) and an
# invoice line's unit price: every amount is answered as a JSON number, exact to the cent only far below the 10^22 a
# quantity times a unit price can reach (session 28).
AMOUNT_LIMIT = MONEY_LIMIT


def check_amounts(amount, others, fields: tuple[str, ...] | None) -> None:
    """400 naming `fields` (the request's quantity and unit_price) when the line's `amount`, or the sum of the
    budget's lines with it (`others`: the sum of the other lines), reaches AMOUNT_LIMIT in size; `fields` None: a
    removal (`amount` 0), a 409."""
    if max(abs(amount), abs(others + amount)) < AMOUNT_LIMIT:
        return
    message = f"a line's amount and the sum of the budget's lines must stay below {AMOUNT_LIMIT:,} in size"
    if fields is None:
        raise Conflict(f"The sum of the budget's lines would be too large: {message}")
    raise BadRequest("The line's amount is too large", details=[{"field": field, "message": message}
                                                                 for field in fields])


def _check_item_references(ctx, values: dict, item: BudgetLineItem | None = None) -> None:
    details = []
    service_type_id, task_id = values.get("service_type_id"), values.get("task_id")
    if service_type_id and (item is None or service_type_id != item.service_type_id):
        if not list_items_among(ctx.db, "service_type", [service_type_id]):
            details.append({"field": "service_type_id", "message": "must be an item of the service_type list"})
    if task_id and (item is None or task_id != item.task_id):
        from chalicelib.areas.tasks import service as tasks_service

        if not tasks_service.visible_task_exists(ctx, task_id):  # tasks:view and the scope (session 29)
            details.append({"field": "task_id", "message": "must be a task you can see"})
    if details:
        raise BadRequest("Invalid line item references", details=details)


def _item_out(ctx, item: BudgetLineItem) -> dict:
    return item_records(ctx, item_rows(ctx.db, item.budget_id, item.id))[0]  # titles in the caller's task scope


def _touch(budget: Budget) -> None:
    budget.updated_at = utcnow()


def add_line_item(ctx, *, budget_id: str, data) -> dict:
    """A budget holds at most LINE_ITEM_LIMIT (500) line items: 409 beyond (its parent locked, so that
    concurrent adds cannot pass the cap together)."""
    budget = load_budget(ctx, budget_id)
    lock_row(ctx.db, Budget, budget.id, missing="Budget")
    check_lines_open(budget)
    count, others = line_item_totals(ctx.db, budget.id)
    if count >= LINE_ITEM_LIMIT:
        raise Conflict(f"A budget holds at most {LINE_ITEM_LIMIT} line items")
    values = data.model_dump()
    amount = line_amount(values["quantity"], values["unit_price"])
    check_amounts(amount, others, ("quantity", "unit_price"))
    _check_item_references(ctx, values)
    item = BudgetLineItem(budget_id=budget.id, **values, amount=amount)
    ctx.db.add(item)
    _touch(budget)
    ctx.db.flush()
    history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="line_item_added", actor_id=ctx.user_id,
                   changes={"item_id": item.id, "description": item.description, "amount": value_out(item.amount)})
    ctx.db.flush()
    return _item_out(ctx, item)


def _locked_item(ctx, budget_id: str, item_id: str) -> tuple[Budget, BudgetLineItem]:
    """(budget, line item), the budget's row locked (as every line item write locks it) and then the item's, both
    re-read (core.locks.lock_row); 404 when either is missing or out of scope, including one deleted by the
    request this one waited for."""
    budget = load_budget(ctx, budget_id)
    lock_row(ctx.db, Budget, budget.id, missing="Budget")
    item = lock_row(ctx.db, BudgetLineItem, item_id, where=BudgetLineItem.budget_id == budget.id, missing="Line item")
    return budget, item


def update_line_item(ctx, *, budget_id: str, item_id: str, data) -> dict:
    """The amount is computed from the item as it stands: the budget row (every line item write's parent), then
    the item, are locked and re-read first, so an update that waited for another computes quantity * unit_price
    from that other's values. An item sent back unchanged (a client saving the whole row it read) writes nothing:
    no `line_item_updated` entry, the budget not touched (session 22, docs/decisions/budgets.md)."""
    budget, item = _locked_item(ctx, budget_id, item_id)
    changes = data.changes()
    if any(getattr(item, key) != value for key, value in changes.items()):  # sent back unchanged: nothing changes
        check_lines_open(budget)
    _check_item_references(ctx, changes, item)
    fields = [field for field in ITEM_FIELDS if field != "updated_at"]
    before = row_dict(item, fields)
    amount = line_amount(changes.get("quantity", item.quantity), changes.get("unit_price", item.unit_price))
    if amount != item.amount:  # a line kept as it is passes (one made before the bound, session 28)
        check_amounts(amount, line_item_totals(ctx.db, budget.id, other_than=item.id)[1],
                      tuple(f for f in ("quantity", "unit_price") if f in changes))
    for key, value in changes.items():
        setattr(item, key, value)
    item.amount = amount
    changed = history.diff(before, row_dict(item, fields))
    if changed:  # values equal to the stored ones make no UPDATE of the item (SQLAlchemy compares them) either
        _touch(budget)
        ctx.db.flush()
        history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="line_item_updated",
                       actor_id=ctx.user_id, changes={"item_id": item.id, **changed})
        ctx.db.flush()
    return _item_out(ctx, item)


def delete_line_item(ctx, *, budget_id: str, item_id: str) -> None:
    from chalicelib.areas.timesheets import service as timesheets_service

    budget, item = _locked_item(ctx, budget_id, item_id)  # a second delete at once finds it gone: 404, one entry
    check_lines_open(budget)
    if item.amount < 0:  # removing a discount raises the sum of the lines
        check_amounts(0, line_item_totals(ctx.db, budget.id, other_than=item.id)[1], None)
    history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="line_item_removed",
                   actor_id=ctx.user_id, changes={"item_id": item.id, "description": item.description,
                                                  "amount": value_out(item.amount)})
    timesheets_service.clear_line_item(ctx.db, line_item_id=item.id)
    ctx.db.delete(item)
    _touch(budget)
    ctx.db.flush()


def reorder_line_items(ctx, *, budget_id: str, item_ids: list[str]) -> None:
    """Each named item's position = its index; every id must be an item of this budget, no repeats (400
    before any write, so the reorder is all or nothing)."""
    budget = load_budget(ctx, budget_id)
    lock_row(ctx.db, Budget, budget.id, missing="Budget")  # one reorder at a time: the result is exactly one request's order
    listed = ctx.db.scalars(select(BudgetLineItem.id).where(BudgetLineItem.budget_id == budget.id)
                            .order_by(BudgetLineItem.position, BudgetLineItem.created_at, BudgetLineItem.id)).all()
    if item_ids and list(item_ids) == list(listed):
        return  # the order as listed, sent back (a save-back): no change, on a frozen budget too (session 31's review)
    check_lines_open(budget, what="the order of its line items")
    reorder(ctx.db, BudgetLineItem, BudgetLineItem.position, item_ids, parent=BudgetLineItem.budget_id == budget.id,
            field="item_ids", what="line items of this budget")
    _touch(budget)
    ctx.db.flush()
