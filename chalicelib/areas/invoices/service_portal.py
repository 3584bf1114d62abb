"""Invoices in the client portal (the portal area calls these through invoices' service): the invoices issued
to a client's companies, listed and read with client-safe fields, and their financial summary."""
from __future__ import annotations

from sqlalchemy import func, select

from chalicelib.core.timeutil import org_today

from .models import Invoice, InvoiceLineItem
from .queries import owes, owing, unpaid

# A client sees the invoices issued to it: approved in the ledger, sent or paid. Drafts and `finalised` ones
# (a ledger draft) are not issued yet; voided ones were cancelled (docs/decisions/portal.md).
PORTAL_STATUSES = ("approved", "sent", "paid")
PORTAL_INVOICE_FIELDS = ("id", "invoice_number", "status", "currency", "due_date", "issued_date", "company_id",
                         "subtotal", "tax", "total", "amount_paid", "amount_due", "payment_status", "created_at",
                         "updated_at")
PORTAL_ITEM_FIELDS = ("id", "description", "quantity", "unit_price", "amount", "position")
PORTAL_PAYMENT_FIELDS = ("id", "amount", "date", "reference", "status")


def _portal_scope(company_ids) -> tuple:
    return Invoice.company_id.in_(company_ids), Invoice.status.in_(PORTAL_STATUSES)


def _portal_out(invoice: Invoice, today) -> dict:
    from chalicelib.core.serialize import flag, row_dict

    record = row_dict(invoice, PORTAL_INVOICE_FIELDS)
    # a 0/1 flag like every flag of the service (document 1, convention 4)
    record["is_overdue"] = flag(invoice.status != "paid" and invoice.payment_status != "paid" and owes(invoice)
                                and invoice.due_date and invoice.due_date < today)
    return record


def portal_invoice_ids(company_ids):
    """A SELECT of the ids of the invoices these companies (a list or a SELECT of ids) see in the portal."""
    return select(Invoice.id).where(*_portal_scope(company_ids))


def portal_invoices(db, company_ids) -> list[dict]:
    """The issued invoices of these companies, newest issued first, at most LIST_LIMIT (one statement):
    client-safe fields only (no internal notes, ledger ids or statuses, creator, budget or contact)."""
    from chalicelib.core.query import LIST_LIMIT

    today = org_today()
    rows = db.scalars(select(Invoice).where(*_portal_scope(company_ids))
                      .order_by(Invoice.issued_date.desc(), Invoice.created_at.desc(), Invoice.id).limit(LIST_LIMIT))
    return [_portal_out(invoice, today) for invoice in rows]


def portal_invoice(db, invoice_id: str, company_ids) -> tuple[dict, list[dict], list[dict]] | None:
    """(invoice, line items, payments) of an issued invoice of these companies, or None (three statements)."""
    from chalicelib.core.serialize import row_dict

    from .models import InvoicePayment
    from .queries import LINE_ITEM_LIMIT

    invoice = db.scalar(select(Invoice).where(Invoice.id == invoice_id, *_portal_scope(company_ids)))
    if invoice is None:
        return None
    items = db.scalars(select(InvoiceLineItem).where(InvoiceLineItem.invoice_id == invoice.id)
                       .order_by(InvoiceLineItem.position, InvoiceLineItem.created_at, InvoiceLineItem.id)
                       .limit(LINE_ITEM_LIMIT))
    payments = db.scalars(select(InvoicePayment).where(InvoicePayment.invoice_id == invoice.id)
                          .order_by(InvoicePayment.date, InvoicePayment.created_at, InvoicePayment.id)
                          .limit(LINE_ITEM_LIMIT))
    return (_portal_out(invoice, org_today()), [row_dict(item, PORTAL_ITEM_FIELDS) for item in items],
            [row_dict(payment, PORTAL_PAYMENT_FIELDS) for payment in payments])


def portal_financial_select(company_ids):
    """The read of a client's financial figures (the portal dashboard's, one statement): one row per currency of the
    issued invoices (currency, invoiced, outstanding, overdue), none without an invoice; for a record_sets
    statement. total_invoiced is the totals of these companies' issued invoices, total_outstanding what is still due
    on those not paid (amount_due, else total less amount_paid), total_overdue the part of it whose due date is
    before today in ORG_TIMEZONE, per currency, never added across currencies (`portal_financial_record`)."""
    from sqlalchemy import case

    due = func.coalesce(Invoice.amount_due, Invoice.total - Invoice.amount_paid)
    outstanding = case((unpaid(), due), else_=0)
    overdue = case((unpaid() & owing() & (Invoice.due_date < org_today()), due), else_=0)
    return (select(Invoice.currency.label("currency"), func.coalesce(func.sum(Invoice.total), 0).label("invoiced"),
                   func.coalesce(func.sum(outstanding), 0).label("outstanding"),
                   func.coalesce(func.sum(overdue), 0).label("overdue"))
            .where(*_portal_scope(company_ids)).group_by(Invoice.currency))


def portal_financial_record(rows) -> dict:
    """The figures from `portal_financial_select`'s rows (records or row mappings, one per currency, any order):
    `by_currency` lists each currency's own totals, the main currency first (the one with the most invoiced,
    ties by code), then by code; the top-level totals and `currency` are the main one's (zeros and null without
    an invoice). Amounts of different currencies are never added (docs/decisions/portal.md, "Dashboard")."""
    by_currency = sorted(({"currency": row["currency"], "total_invoiced": round(float(row["invoiced"]), 2),
                           "total_outstanding": round(float(row["outstanding"]), 2),
                           "total_overdue": round(float(row["overdue"]), 2)} for row in rows),
                         key=lambda c: c["currency"])
    if by_currency:
        main = max(by_currency, key=lambda c: c["total_invoiced"])  # the first of the largest: ties by code
        by_currency.remove(main)
        by_currency.insert(0, main)
    main = by_currency[0] if by_currency else {
        "currency": None, "total_invoiced": 0.0, "total_outstanding": 0.0, "total_overdue": 0.0}
    return {"total_invoiced": main["total_invoiced"], "total_outstanding": main["total_outstanding"],
            "total_overdue": main["total_overdue"], "currency": main["currency"], "by_currency": by_currency}
