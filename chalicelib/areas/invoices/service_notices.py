"""The invoices area's notifications (docs/decisions/invoices.md, "Notifications"): `invoice_created`, `invoice_paid`
and `invoice_overdue`, and the scan that finds the invoices past their due date (the hourly `invoice-overdue-scan`).

Who is told: the owner and the delivery manager of the project the invoice's budget belongs to (a deal's budget, or
no budget: no project), and for paid and overdue also the invoice's creator; never the one who acted; only those who
may read the invoice (queries.invoice_readers). An overdue or paid-in-the-ledger invoice none of those may read (the
actor not among them) is told to the first who may read it of the deal's owner (a deal's budget) and the company's
owner (session 25). Every call tells about any number of invoices in a fixed number of statements: the project
managers, the deal owners and the companies' names and owners in one round trip (core.query.record_sets), the readers
(two at most, the fallbacks asked with the others), then core notify's read and write (notify_many, which
de-duplicates and delivers after commit).
"""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select, update

from chalicelib.core.lookup import ids_read
from chalicelib.core.query import record_sets
from chalicelib.core.timeutil import org_today

from .models import Invoice
from .queries import invoice_readers, owing, unpaid

# What a notice reads of an invoice (`facts`): its number and company (the title), its budget and creator (who is
# told), its money and due date (the body).
FACT_FIELDS = ("id", "invoice_number", "company_id", "budget_id", "created_by", "currency", "total", "amount_paid",
               "amount_due", "due_date")
# The statuses of an invoice issued to the client, which can fall overdue: approved in the ledger (authorised) or
# sent. A draft or a `finalised` one (a ledger draft) is not issued yet; a paid or voided one is owed nothing (as the
# portal's overdue total: service_portal.PORTAL_STATUSES less paid).
OVERDUE_STATUSES = ("approved", "sent")


def facts(invoice: Invoice) -> dict:
    return {field: getattr(invoice, field) for field in FACT_FIELDS}


def _managers_statement(budget_in):
    """The owner and delivery manager of the project of each of these budgets (a budget of a project), and the owner
    of the deal of each (a deal's budget; `deal_owner_id`, the fallback: `_tell`). Budgets, projects and deals are
    reached through their services."""
    from chalicelib.areas.budgets import service as budgets_service
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.areas.projects import service as projects_service

    Budget, Project, Deal = budgets_service.Budget, projects_service.Project, deals_service.Deal
    return (select(Budget.id, Project.owner_id, Project.delivery_manager_id, Deal.owner_id.label("deal_owner_id"))
            .outerjoin(Project, (Budget.resource_type == "project") & (Project.id == Budget.resource_id))
            .outerjoin(Deal, (Budget.resource_type == "deal") & (Deal.id == Budget.resource_id))
            .where(budget_in(Budget.id), Budget.resource_type.in_(("project", "deal"))))


def _companies_statement(company_in):
    """The name (the title) and the owner (the fallback: `_tell`) of each of these companies, reached through the
    deals service."""
    from chalicelib.areas.deals import service as deals_service

    Company = deals_service.Company
    return select(Company.id, Company.name, Company.owner_id).where(company_in(Company.id))


def money_text(currency: str, amount) -> str:
    """"AUD 1,650.00": the currency code and the amount to the cent (the notices, the ledger sync's reports)."""
    return f"{currency} {Decimal(amount or 0):,.2f}"


def _title(label: str, invoice: dict, companies: dict) -> str:
    company = companies.get(invoice["company_id"])
    return f"{label}: {invoice['invoice_number']}" + (f" for {company}" if company else "")


def _tell(ctx, type: str, label: str, invoices: list[dict], body, *, creator: bool, fallback: bool = False) -> int:
    """`type` about each of `invoices` (their `facts`) to the managers of its project, and its creator when
    `creator`, who may read it, never the actor; `body(invoice)` its text. With `fallback` (the jobs' notices:
    overdue, paid in the ledger), an invoice none of those may read, the actor not among them, is told to the first
    who may read it of the deal's owner (a deal's budget) and the company's owner, never the actor (session 25:
    a creator who left, or none, told nobody for good). Answers how many were notified."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    budget_ids = sorted({invoice["budget_id"] for invoice in invoices if invoice["budget_id"]})
    if not invoices or not (budget_ids or creator):
        return 0
    db = ctx.db
    sets = record_sets(db, managers=ids_read(db, _managers_statement, "notice_budget_ids", budget_ids),
                       companies=ids_read(db, _companies_statement, "notice_company_ids",
                                          sorted({invoice["company_id"] for invoice in invoices
                                                  if invoice["company_id"]})))
    managers = {row["id"]: row for row in sets["managers"]}
    companies = {row["id"]: row for row in sets["companies"]}
    names = {company_id: row["name"] for company_id, row in companies.items()}
    wanted, usual, spare = {}, {}, {}
    for invoice in invoices:
        row = managers.get(invoice["budget_id"]) or {}
        people = {row.get("owner_id"), row.get("delivery_manager_id"), invoice["created_by"] if creator else None}
        people.discard(None)
        usual[invoice["id"]] = people - {ctx.user_id}
        if fallback and ctx.user_id not in people:
            company = companies.get(invoice["company_id"]) or {}
            spare[invoice["id"]] = [user_id for user_id in dict.fromkeys((row.get("deal_owner_id"),
                                                                          company.get("owner_id")))
                                    if user_id and user_id != ctx.user_id]
        asked = usual[invoice["id"]] | set(spare.get(invoice["id"], ()))
        if asked:
            wanted[invoice["id"]] = asked
    readers = invoice_readers(db, wanted) if wanted else {}  # the fallbacks asked with the others: same statements
    told = {}
    for invoice in invoices:
        found = readers.get(invoice["id"], set())
        told[invoice["id"]] = found & usual[invoice["id"]] or {
            *[user_id for user_id in spare.get(invoice["id"], ()) if user_id in found][:1]}
    return len(notify_many(ctx, [  # core notify's claim, one read and one write, whatever the number of notices
        {"user_id": user_id, "type": type, "title": _title(label, invoice, names), "body": body(invoice),
         "resource_type": "invoice", "resource_id": invoice["id"], "action_url": f"/invoices/{invoice['id']}",
         "actor_id": ctx.user_id}
        for invoice in invoices for user_id in sorted(told[invoice["id"]])]))


def tell_created(ctx, invoice: Invoice) -> int:
    """`invoice_created` to the owner and delivery manager of the invoice's project (an invoice made by hand or
    generated from its budget; nobody for an invoice without a project)."""
    return _tell(ctx, "invoice_created", "Invoice created", [facts(invoice)],
                 lambda _: f"Created by {ctx.actor_name}.", creator=False)


def tell_paid_by_hand(ctx, invoice: Invoice) -> int:
    """`invoice_paid` for an invoice whose status an update set to `paid` (it was not paid)."""
    return _tell(ctx, "invoice_paid", "Invoice paid", [facts(invoice)],
                 lambda _: f"Marked paid by {ctx.actor_name}.", creator=True)


def _paid_in_ledger_body(invoice: dict) -> str:
    """The money received (`amount_paid`: payments, and prepayments and overpayments applied), and the credit notes
    applied when there are some (`amount_credited`, no money received): "AUD 600.00 received, AUD 500.00
    credited"."""
    text = f"Paid in the ledger: {money_text(invoice['currency'], invoice['amount_paid'])} received"
    credited = Decimal(invoice.get("amount_credited") or 0)
    if credited > 0:
        text += f", {money_text(invoice['currency'], credited)} credited"
    return text + "."


def tell_paid_in_ledger(ctx, invoices: list[dict]) -> int:
    """`invoice_paid` for the invoices (`facts`, as the sync wrote them, with the ledger's `amount_credited`) a
    ledger sync found paid."""
    return _tell(ctx, "invoice_paid", "Invoice paid", invoices, _paid_in_ledger_body, creator=True, fallback=True)


def _overdue_body(invoice: dict) -> str:
    due = invoice["amount_due"]
    if due is None:
        due = Decimal(invoice["total"] or 0) - Decimal(invoice["amount_paid"] or 0)
    return f"It was due on {invoice['due_date'].isoformat()}; {money_text(invoice['currency'], due)} is outstanding."


def scan_overdue(ctx) -> dict:
    """Tell about every invoice issued to the client (OVERDUE_STATUSES), not paid and owing money (`owing`: an
    invoice of 0.00 owes nothing, session 28), whose due date is before today in
    ORG_TIMEZONE and whose due date was not told yet: one UPDATE marks them (`overdue_noticed_for` = the due date;
    `updated_at` left alone, the notice is no change of the invoice) and answers them, then one `_tell`. Run again:
    nothing new. The mark is cleared when the invoice becomes paid or leaves paid (by hand: service.update_invoice;
    by a ledger sync: service_ledger_sync._apply), so an invoice unpaid again is told again: once per unpaid spell
    and due date (session 27). The rows are locked in id order, skipping those another transaction holds (a request
    changing the invoice, a ledger sync: taken by the next run if still overdue), so the scan never waits for them
    nor deadlocks with the sync (which locks in id order too); a concurrent run skips or no longer matches what the
    first marked. Answers `{overdue: invoices newly found, notified: notifications made}`."""
    due = (Invoice.status.in_(OVERDUE_STATUSES), unpaid(), owing(), Invoice.due_date < org_today(),
           Invoice.overdue_noticed_for.is_distinct_from(Invoice.due_date))
    locked = select(Invoice.id).where(*due).order_by(Invoice.id).with_for_update(skip_locked=True)
    rows = ctx.db.execute(
        update(Invoice)
        .where(Invoice.id.in_(locked), *due)
        .values(overdue_noticed_for=Invoice.due_date, updated_at=Invoice.updated_at)
        .returning(*(getattr(Invoice, field) for field in FACT_FIELDS))
        .execution_options(synchronize_session=False)).mappings().all()
    invoices = sorted((dict(row) for row in rows), key=lambda invoice: (invoice["due_date"], invoice["id"]))
    notified = _tell(ctx, "invoice_overdue", "Invoice overdue", invoices, _overdue_body, creator=True, fallback=True)
    return {"overdue": len(invoices), "notified": notified}
