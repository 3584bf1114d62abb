"""The checks of an invoice's create and update, called by service.py before anything is written: the
references (company, contact, a budget the caller can see), the date rule (not due before it is issued), what the
ledger invoice holds while the invoice stays linked to it (LEDGER_HELD), and the currency of an invoice with
lines."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.errors import BadRequest, Conflict, bad_field

from .models import Invoice, InvoiceLineItem


def check_references(ctx, values: dict, invoice: Invoice | None = None) -> None:
    """company_id (a company), contact_id (a contact), budget_id (a budget the caller can see): 400 with
    details otherwise. On update, unchanged values are not re-checked."""
    from chalicelib.areas.deals import service as deals_service

    def changed(field):
        return values.get(field) and (invoice is None or values[field] != getattr(invoice, field))

    details = []
    if changed("company_id") and not deals_service.company_names(ctx.db, [values["company_id"]]):
        details.append({"field": "company_id", "message": "must be an existing company"})
    if changed("contact_id") and not deals_service.contact_names(ctx.db, [values["contact_id"]]):
        details.append({"field": "contact_id", "message": "must be an existing contact"})
    if changed("budget_id"):
        from chalicelib.areas.budgets import service as budgets_service

        if not budgets_service.visible_budget_exists(ctx, values["budget_id"]):
            details.append({"field": "budget_id", "message": "must be a budget you can see"})
    if details:
        raise BadRequest("Invalid invoice references", details=details)


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
    ledger would bill another client, or in other money, than the invoice says. A change made with a new link
    checked against it, or with the link removed, is allowed."""
    stays_linked = invoice.ledger_invoice_id and ("ledger_invoice_id" not in changes
                                                   or changes["ledger_invoice_id"] == invoice.ledger_invoice_id)
    if not stays_linked:
        return
    held = [field for field in LEDGER_HELD if field in changes and changes[field] != getattr(invoice, field)]
    if held:
        raise Conflict(f"The invoice is in the ledger: its {' and '.join(held)} cannot change there "
                       "(delete the ledger draft, or void it, first)")


def check_currency_with_lines(ctx, invoice: Invoice, changes: dict) -> None:
    """409 when an update changes the currency of an invoice that has lines: their amounts were priced in the
    currency they were entered in (or copied from the budget's), and a new label converts nothing (1000 USD of a
    budget relabelled GBP). Remove the lines first, or make a new invoice."""
    if "currency" not in changes or changes["currency"] == invoice.currency:
        return
    if ctx.db.scalar(select(InvoiceLineItem.id).where(InvoiceLineItem.invoice_id == invoice.id).limit(1)):
        raise Conflict(f"The invoice's lines are in {invoice.currency}: its currency cannot change while it has lines "
                       "(remove them first, or make a new invoice)")
