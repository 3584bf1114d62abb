"""The invoices area's leaf module: the scope clause `visible`, the load-or-404 helpers `load_invoice` and
`load_line_item`, and the read queries and record builders of invoices, line items, payments and mapping
rules. The services import it, never the reverse."""
from __future__ import annotations

from functools import cache

from sqlalchemy import func, or_, select

from chalicelib.core.models import ConfigListItem
from chalicelib.core.query import LIST_LIMIT, record_sets, visible_row
from chalicelib.core.readers import rows_readers, seen_by
from chalicelib.core.serialize import row_dict

from .models import Invoice, InvoiceLineItem, InvoiceMappingRule, InvoicePayment

INVOICE_FIELDS = ("id", "invoice_number", "status", "currency", "due_date", "issued_date", "notes", "company_id",
                  "contact_id", "budget_id", "ledger_invoice_id", "subtotal", "tax", "total", "amount_paid",
                  "amount_due", "payment_status", "ledger_status", "ledger_synced_at", "created_by", "created_at",
                  "updated_at")
ITEM_FIELDS = ("id", "invoice_id", "description", "quantity", "unit_price", "amount", "service_type_id",
               "ledger_account_code", "tax_type", "position", "budget_line_item_id", "created_at", "updated_at")
PAYMENT_FIELDS = ("id", "invoice_id", "ledger_payment_id", "amount", "date", "reference", "status", "created_at")
# An invoice holds at most this many line items (enforced on write), so its detail answers them all.
LINE_ITEM_LIMIT = LIST_LIMIT
LEDGER_URL = "https://go.xero.com/AccountsReceivable/View.aspx?InvoiceID={}"


def visible(principal):
    """WHERE clause of the invoices the principal may see (None: all): an invoice of a budget is seen by
    those who see the budget (budgets' scoping, itself the project's); one without a budget by every
    holder of invoices:view."""
    from chalicelib.areas.budgets import service as budgets_service

    budgets = budgets_service.visible_budget_ids(principal)
    if budgets is None:
        return None
    return or_(Invoice.budget_id.is_(None), Invoice.budget_id.in_(budgets))


def budget_invoice_count(db, budget_id: str) -> int:
    """How many invoices name the budget, any status (voided ones too: they carry the client's data), in one
    statement; budgets' `delete_budget` refuses the delete of a budget they name (session 24)."""
    return int(db.scalar(select(func.count(Invoice.id)).where(Invoice.budget_id == budget_id)) or 0)


def load_invoice(ctx, invoice_id: str) -> Invoice:
    """The invoice if it exists and the caller may see it; 404 otherwise (one query)."""
    return visible_row(ctx.db, Invoice, invoice_id, visible(ctx.principal), "Invoice")


def invoice_seen_by(db, invoice_id: str, principals) -> set[str]:
    """Which of these principals see the invoice: its scope clause as each of them, in one statement (a
    UNION ALL; none for no principals). The notes area asks it of the users a note mentions."""
    return seen_by(db, Invoice, invoice_id, principals, visible)


def invoice_readers(db, wanted: dict[str, set[str]]) -> dict[str, set[str]]:
    """`{invoice_id: the users of wanted[invoice_id] who may read it}`: active, `invoices:view`, the invoice in their
    scope (`visible`), for many invoices at once (a job's notices), two statements at most whatever the number of
    invoices and users (core.readers.rows_readers)."""
    return rows_readers(db, Invoice, wanted, tool="invoices", scope_of=visible)


def is_paid(status: str | None, payment_status: str | None) -> bool:
    """Whether an invoice with these values is paid: its local status or the ledger's payment status says so (the
    negation of `unpaid`, on values held in Python)."""
    return "paid" in (status, payment_status)


def unpaid():
    """WHERE clause of the invoices not paid: neither their local status nor the ledger's payment status says paid
    (the portal's outstanding and overdue totals; the overdue notices, with `owing()`)."""
    return (Invoice.status != "paid") & (func.coalesce(Invoice.payment_status, "") != "paid")


def owing():
    """WHERE clause of the invoices that still owe money: `amount_due` (the ledger's, once linked), else total less
    amount paid, above zero. An invoice of 0.00 (a free proposal's accept) owes nothing and is never overdue
    (session 28)."""
    return func.coalesce(Invoice.amount_due, Invoice.total - Invoice.amount_paid) > 0


def owes(invoice) -> bool:
    """`owing()` on an invoice held in Python (no statement)."""
    due = invoice.amount_due
    if due is None:
        due = (invoice.total or 0) - (invoice.amount_paid or 0)
    return due > 0


def load_line_item(ctx, invoice_id: str, item_id: str) -> InvoiceLineItem:
    """The line item of this invoice (already loaded through `load_invoice`); 404 otherwise."""
    return visible_row(ctx.db, InvoiceLineItem, item_id, InvoiceLineItem.invoice_id == invoice_id, "Line item")


def _person(first_last) -> str | None:
    if not first_last:
        return None
    return " ".join(part for part in first_last if part) or None


def invoice_lookups(db, records) -> dict:
    """The reads that complete invoice records (company, contact and budget names), for one record_sets round
    trip (or record_page's lookups)."""
    from chalicelib.areas.budgets import service as budgets_service
    from chalicelib.areas.deals import service as deals_service

    return {"companies": deals_service.company_names_select(db, [r["company_id"] for r in records]),
            "contacts": deals_service.contact_names_select(db, [r["contact_id"] for r in records]),
            "budgets": budgets_service.budget_briefs_select(db, [r["budget_id"] for r in records])}


def with_invoice_lookups(db, records: list[dict], sets: dict, *, detail: bool = False, principal=None) -> list[dict]:
    """The records with company_name, contact_name and budget_name from `invoice_lookups`'s answers (`sets`);
    `detail` adds project_id, project_name (one more statement), po_number and ledger_url. For a `principal` (the
    caller), the budget is named only with `budgets:view` and the project only with `projects:view` (session 29: a
    caller whose budgets or projects permission is none read their names through the invoice); their ids stay."""
    companies = {row["id"]: row["name"] for row in sets["companies"]}
    contacts = {row["id"]: (row["first_name"], row["last_name"]) for row in sets["contacts"]}
    budgets = {row["id"]: row for row in sets["budgets"]}
    names_budgets = principal is None or principal.can("budgets", "view")
    names_projects = principal is None or principal.can("projects", "view")
    projects = {}
    if detail and names_projects:
        from chalicelib.areas.projects import service as projects_service

        projects = projects_service.project_names(db, [b["resource_id"] for b in budgets.values()
                                                       if b["resource_type"] == "project"])
    for record in records:
        budget = budgets.get(record["budget_id"]) or {}
        record.update(company_name=companies.get(record["company_id"]),
                      contact_name=_person(contacts.get(record["contact_id"])),
                      budget_name=budget.get("name") if names_budgets else None)
        if detail:
            project_id = budget.get("resource_id") if budget.get("resource_type") == "project" else None
            ledger_id = record["ledger_invoice_id"]
            record.update(project_id=project_id, project_name=projects.get(project_id),
                          po_number=budget.get("po_number"),
                          ledger_url=LEDGER_URL.format(ledger_id) if ledger_id else None)
    return records


@cache
def invoice_select():
    """Invoices as records (INVOICE_FIELDS), read without ORM instances (core.query.record_page); built once per
    process."""
    return select(*(getattr(Invoice, name) for name in INVOICE_FIELDS))


def invoice_records(db, invoices, *, detail: bool = False, principal=None) -> list[dict]:
    """Invoice records with company_name, contact_name and budget_name (one statement for the whole list:
    core.query.record_sets); `detail` adds project_id, project_name, po_number and ledger_url. `principal`: the
    caller the names are told to (`with_invoice_lookups`)."""
    records = [row_dict(invoice, INVOICE_FIELDS) for invoice in invoices]
    return with_invoice_lookups(db, records, record_sets(db, **invoice_lookups(db, records)), detail=detail,
                                principal=principal)


def invoice_record(db, invoice_id: str, *, detail: bool = False, principal=None) -> dict:
    return invoice_records(db, [db.get(Invoice, invoice_id)], detail=detail, principal=principal)[0]


def item_rows(db, invoice_id: str, item_id: str | None = None) -> list:
    stmt = (select(InvoiceLineItem, ConfigListItem.label)
            .outerjoin(ConfigListItem, ConfigListItem.id == InvoiceLineItem.service_type_id)
            .where(InvoiceLineItem.invoice_id == invoice_id))
    if item_id is not None:
        stmt = stmt.where(InvoiceLineItem.id == item_id)
    return db.execute(stmt.order_by(InvoiceLineItem.position, InvoiceLineItem.created_at, InvoiceLineItem.id)
                      .limit(LINE_ITEM_LIMIT)).all()


def item_records(rows) -> list[dict]:
    return [{**row_dict(item, ITEM_FIELDS), "service_type_name": label} for item, label in rows]


def payment_records(db, invoice_id: str) -> list[dict]:
    rows = db.scalars(select(InvoicePayment).where(InvoicePayment.invoice_id == invoice_id)
                      .order_by(InvoicePayment.date, InvoicePayment.created_at, InvoicePayment.id)
                      .limit(LIST_LIMIT)).all()
    return [row_dict(payment, PAYMENT_FIELDS) for payment in rows]


def rule_records(db, service_type_id: str | None = None) -> list[dict]:
    stmt = (select(InvoiceMappingRule, ConfigListItem.label)
            .join(ConfigListItem, ConfigListItem.id == InvoiceMappingRule.service_type_id))
    if service_type_id is not None:
        stmt = stmt.where(InvoiceMappingRule.service_type_id == service_type_id)
    rows = db.execute(stmt.order_by(ConfigListItem.label, InvoiceMappingRule.service_type_id).limit(LIST_LIMIT)).all()
    return [{"id": rule.service_type_id, **row_dict(rule, ("service_type_id", "ledger_account_code", "description", "created_at", "updated_at")),
             "service_type_name": label} for rule, label in rows]
