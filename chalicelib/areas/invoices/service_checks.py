"""The checks of an invoice's create and update, called by service.py before anything is written: the
references (company, contact, a budget the caller can see), the date rule (not due before it is issued), what the
ledger invoice holds while the invoice stays linked to it (LEDGER_HELD), the currency of an invoice with lines, and
the currency of an invoice of a budget (the budget's)."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.errors import BadRequest, Conflict, bad_field

from .models import Invoice, InvoiceLineItem


def check_references(ctx, values: dict, invoice: Invoice | None = None) -> None:
    """company_id (a company), contact_id (a contact), budget_id (a budget): each one the caller can see (its tool at
    view and its scope), 400 with details otherwise. On update, unchanged values are not re-checked."""
    from chalicelib.areas.deals import service as deals_service

    def changed(field):
        return values.get(field) and (invoice is None or values[field] != getattr(invoice, field))

    # companies and contacts are seen with `deals:view` (decisions.md section 5; session 29: existence alone was asked)
    details = deals_service.unseen_references(ctx, values, ("company_id", "contact_id"), changed)
    if changed("budget_id"):
        from chalicelib.areas.budgets import service as budgets_service

        if not budgets_service.visible_budget_exists(ctx, values["budget_id"]):  # budgets:view and the scope
            details.append({"field": "budget_id", "message": "must be a budget you can see"})
    if details:
        raise BadRequest("Invalid invoice references", details=details)


def budget_currency(ctx, budget_id: str) -> str | None:
    """The currency of a budget the caller is checked to see (check_references), through budgets' `held_currency`:
    the budget's row is held (FOR KEY SHARE) until the request's transaction ends, so a currency change of the budget
    and this invoice's write take turns (docs/decisions/invoices.md, "Currency"). None when the budget was deleted
    meanwhile (the write's key then refuses it, as it did before the currency rule)."""
    from chalicelib.areas.budgets import service as budgets_service

    return budgets_service.held_currency(ctx.db, budget_id)


def wrong_currency(budget_currency: str, *, field: str = "currency", invoice_currency: str | None = None,
                   generated: bool = False) -> BadRequest:
    """The 400 of an invoice of a budget in another currency than the budget's, naming `field`: `currency` (the
    currency given is not the budget's), `budget_id` (the budget named is in another currency than the invoice's) or
    `status` (a voided invoice set back to a live status, its budget's currency changed meanwhile). The budget's
    fixed price left to bill and the project's profitability count the invoice's amounts in the budget's money."""
    if field == "currency":
        message = f"must be the budget's currency, {budget_currency}"
    elif field == "status":
        message = (f"cannot leave voided: the invoice is in {invoice_currency} and its budget is now in "
                   f"{budget_currency} (send currency {budget_currency} with it for an invoice without lines, or make "
                   "a new invoice)")
    else:
        message = (f"must be a budget in the invoice's currency, {invoice_currency} (this budget is in "
                   f"{budget_currency}; send currency {budget_currency} with it to move an invoice without lines)")
    return BadRequest(f"An invoice {'generated from' if generated else 'of'} a budget is in the budget's currency",
                      details=[{"field": field, "message": message}])


def _budget_to_check(changes: dict, invoice: Invoice) -> tuple[str, str] | None:
    """(budget_id, currency) when an update must check the invoice's currency against its budget's: it names a new
    budget, changes the currency, or takes a voided invoice out of `voided` (voided invoices do not hold a budget's
    currency, which may have changed under it); None otherwise (or without a budget)."""
    budget_id = changes["budget_id"] if "budget_id" in changes else invoice.budget_id
    currency = changes.get("currency") or invoice.currency  # currency: null is a 400 of the schema
    leaves_voided = invoice.status == "voided" and changes.get("status", "voided") != "voided"
    if budget_id and (currency != invoice.currency or budget_id != invoice.budget_id or leaves_voided):
        return budget_id, currency
    return None


def hold_budget_currency(ctx, changes: dict, invoice: Invoice, known: dict) -> None:
    """Before an update locks the invoice's row: the currency of the budget `check_budget_currency` will check, read
    into `known` with the budget's row held (budget_currency), so the budget's row is taken before the invoice's, the
    order a budget's delete takes them (its row, then its invoices' through ON DELETE SET NULL): the two never wait
    for each other crosswise. Nothing is answered from it here: the checks run on the locked invoice, in their order."""
    target = _budget_to_check(changes, invoice)
    if target is not None and target[0] not in known:
        known[target[0]] = budget_currency(ctx, target[0])


def check_budget_currency(ctx, changes: dict, invoice: Invoice, known: dict | None = None) -> None:
    """400 when an update would leave an invoice of a budget in another currency than the budget's: a `currency`
    other than the budget's (400 on `currency`, also when the request names a new budget with it), a new
    `budget_id` in another currency than the invoice's (400 on `budget_id`), or a voided invoice set back to another
    status while its budget is now in another currency (400 on `status`). Read only then (one read of the budget,
    its row held: budget_currency); an invoice made before the rule in another currency keeps it through other edits.
    A budget deleted meanwhile is left to the write's key, as before. `known` ({budget_id: currency}) holds the
    currencies this request's transaction read already (hold_budget_currency): a budget is read once."""
    target = _budget_to_check(changes, invoice)
    if target is None:
        return
    budget_id, currency = target
    known = {} if known is None else known
    if budget_id not in known:
        known[budget_id] = budget_currency(ctx, budget_id)
    theirs = known[budget_id]
    if theirs is None or theirs == currency:
        return
    if currency != invoice.currency:
        raise wrong_currency(theirs)
    if budget_id != invoice.budget_id:
        raise wrong_currency(theirs, field="budget_id", invoice_currency=currency)
    raise wrong_currency(theirs, field="status", invoice_currency=currency)


def check_dates(changes: dict, invoice: Invoice | None) -> None:
    """400 when the invoice would fall due before it is issued (a due date on the issue date is allowed). On
    update each date left out is the stored one; the field named is `due_date` when the request gives it,
    otherwise `issued_date` (moved past the stored due date)."""
    due = changes["due_date"] if "due_date" in changes else getattr(invoice, "due_date", None)
    issued = changes["issued_date"] if "issued_date" in changes else getattr(invoice, "issued_date", None)
    if due is None or issued is None or due >= issued:
        return
    if "due_date" in changes:
        raise bad_field("due_date", "must not be before issued_date")
    raise bad_field("issued_date", "must not be after due_date")


# What the ledger invoice holds and an update may not change while the invoice is linked to it: the company (the
# ledger invoice's contact) and the currency; the lines are held by service_lines.check_not_in_ledger.
LEDGER_HELD = ("company_id", "currency")


def check_ledger_held(invoice: Invoice, changes: dict) -> None:
    """409 when an update changes what the ledger invoice holds (LEDGER_HELD) while the invoice stays linked: the
    ledger would bill another client, or in other money, than the invoice says; or voids it here while the ledger
    still bills it (check_void_in_ledger). A change made with a new link checked against it, or with the link removed,
    is allowed."""
    stays_linked = invoice.ledger_invoice_id and ("ledger_invoice_id" not in changes
                                                   or changes["ledger_invoice_id"] == invoice.ledger_invoice_id)
    if not stays_linked:
        return
    held = [field for field in LEDGER_HELD if field in changes and changes[field] != getattr(invoice, field)]
    if held:
        raise Conflict(f"The invoice is in the ledger: its {' and '.join(held)} cannot change there "
                       "(delete the ledger draft, or void it, first)")
    check_void_in_ledger(invoice, changes)


# The ledger states in which the ledger bills the client nothing: a local `voided` agrees with them.
LEDGER_BILLS_NOTHING = ("VOIDED", "DELETED")


def check_void_in_ledger(invoice: Invoice, changes: dict) -> None:
    """409 when an update sets `voided` on an invoice that stays linked to a ledger invoice the ledger still holds
    (its status last read not VOIDED or DELETED; not read yet counts as held): voided here alone, the invoice stopped
    counting on its budget (a retainer invoiced again, the fixed price billed again: two ledger invoices billing the
    client) and left the hourly sync for good, while the ledger kept billing (session 31). The way is the ledger's
    (`ledger-void`, or `ledger-delete` of a draft), which sets `voided` (or `draft`) here too; a request that unlinks
    the invoice (`ledger_invoice_id: null`) with it, and a voided invoice sent back as voided, pass."""
    if changes.get("status") != "voided" or invoice.status == "voided" \
            or (invoice.ledger_status or "").upper() in LEDGER_BILLS_NOTHING:
        return
    state = f"{invoice.ledger_status} there" if invoice.ledger_status else "its ledger status not read yet: sync it"
    raise Conflict(f"The invoice is in the ledger ({state}): void it there first (ledger-void), or delete the ledger "
                   "draft (ledger-delete); voided here alone, the ledger would still bill the client")


def check_currency_with_lines(ctx, invoice: Invoice, changes: dict) -> None:
    """409 when an update changes the currency of an invoice that has lines: their amounts were priced in the
    currency they were entered in (or copied from the budget's), and a new label converts nothing (1000 USD of a
    budget relabelled GBP). Remove the lines first, or make a new invoice."""
    if "currency" not in changes or changes["currency"] == invoice.currency:
        return
    if ctx.db.scalar(select(InvoiceLineItem.id).where(InvoiceLineItem.invoice_id == invoice.id).limit(1)):
        raise Conflict(f"The invoice's lines are in {invoice.currency}: its currency cannot change while it has lines "
                       "(remove them first, or make a new invoice)")
