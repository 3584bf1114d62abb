"""The portal's invoices (group-aware list; detail with line items and payments of the caller's company only),
read through the invoices area's service (the dashboard's financial totals: service.dashboard): only issued invoices
(approved, sent, paid) and only client-safe fields (docs/decisions/portal.md)."""
from __future__ import annotations

from chalicelib.core.errors import not_found


def list_invoices(ctx) -> list[dict]:
    from chalicelib.areas.invoices import service as invoices_service

    return invoices_service.portal_invoices(ctx.db, ctx.portal.company_ids)


def invoice_detail(ctx, *, invoice_id: str) -> tuple[dict, list[dict], list[dict]]:
    """An issued invoice of the caller's company (not of a sister company); 404 otherwise."""
    from chalicelib.areas.invoices import service as invoices_service

    found = invoices_service.portal_invoice(ctx.db, invoice_id, [ctx.portal.company_id])
    if found is None:
        raise not_found("Invoice")
    return found


def invoice_ids(company_ids):
    """A SELECT of the ids of the invoices these companies see in the portal (history and notes)."""
    from chalicelib.areas.invoices import service as invoices_service

    return invoices_service.portal_invoice_ids(company_ids)


def company_has_invoice(ctx, invoice_id: str) -> bool:
    """Whether the invoice is one the caller's company (not a sister company) sees in the portal."""
    return shows_invoice(ctx.db, ctx.portal.company_id, invoice_id)


def shows_invoice(db, company_id: str, invoice_id: str) -> bool:
    """Whether the company's portal shows the invoice (issued to that company; one statement)."""
    return db.scalar(invoice_ids([company_id]).filter_by(id=invoice_id)) is not None
