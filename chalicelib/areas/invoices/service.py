"""Invoices: list, detail, create (optionally generated from a budget), update, delete, mapping rules, and
the reads other areas make (budgets' invoiced amounts).

Scoping: an invoice of a budget is seen by those who see the budget (budgets' scoping, itself the
project's); an invoice without a budget by every holder of invoices:view. Out of scope answers 404.
Other areas are reached through their `service`, imported inside the function that needs it: budgets
(scope, names, generation source), deals (company and contact names and checks), projects (names),
timesheets (the time a generation bills). Every write is recorded in history (entity_type `invoice`).
"""
from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from sqlalchemy import func, select, update

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict, NotFound, bad_field
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_ignore
from chalicelib.core.lookup import list_items_among
from chalicelib.core.query import Page, in_scope, record_page
from chalicelib.core.serialize import value_out
from chalicelib.core.timeutil import org_today

from . import service_generate, service_lines
from .models import Invoice, InvoiceLineItem, InvoiceMappingRule, InvoiceNumberCounter
from .queries import (INVOICE_FIELDS, invoice_lookups, invoice_record, invoice_select, item_records, item_rows,
                      load_invoice, payment_records, rule_records, visible, with_invoice_lookups)
from .queries import invoice_seen_by  # noqa: F401 - the notes area asks who of a note's mentioned users see the record

ENTITY = "invoice"
NUMBER_FORMAT = "INV-{:05d}"


# ---------------------------------------------------------------- for other areas (budgets)

def invoiced_by_budget_line_item(db, line_item_ids) -> dict[str, float]:
    """`{budget_line_item_id: amount}` billed from each budget line by invoices that are not voided (one
    grouped statement)."""
    ids = sorted({iid for iid in line_item_ids or () if iid})
    if not ids:
        return {}
    return line_item_invoiced(db.execute(invoiced_by_line_item_select(ids)).mappings())


def invoiced_by_line_item_select(line_item_ids):
    """The read of `invoiced_by_budget_line_item` for these budget lines (ids, or a SELECT of ids): records
    budget_line_item_id, amount, for a record_sets statement; `line_item_invoiced` reads its records."""
    return (select(InvoiceLineItem.budget_line_item_id, func.sum(InvoiceLineItem.amount).label("amount"))
            .join(Invoice, Invoice.id == InvoiceLineItem.invoice_id)
            .where(InvoiceLineItem.budget_line_item_id.in_(line_item_ids), Invoice.status != "voided")
            .group_by(InvoiceLineItem.budget_line_item_id))


def line_item_invoiced(records) -> dict[str, float]:
    return {r["budget_line_item_id"]: round(float(r["amount"] or 0), 2) for r in records}


def invoiced_totals(db, budget_ids) -> tuple[float, float]:
    """(invoiced, collected): the totals and amounts paid of the invoices of these budgets (a SELECT of ids)
    that are not voided (one statement); for a project's profitability."""
    row = db.execute(select(func.coalesce(func.sum(Invoice.total), 0), func.coalesce(func.sum(Invoice.amount_paid), 0))
                     .where(Invoice.budget_id.in_(budget_ids), Invoice.status != "voided")).one()
    return round(float(row[0] or 0), 2), round(float(row[1] or 0), 2)


def live_invoice_currencies(db, budget_id: str) -> set[str]:
    """The currencies of the budget's invoices that are not voided (one query); budgets refuse a currency change
    that would leave them in another money than the budget's."""
    return set(db.scalars(select(Invoice.currency).where(Invoice.budget_id == budget_id, Invoice.status != "voided")
                          .distinct()))


# ---------------------------------------------------------------- for the client portal

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


def _unpaid():
    return (Invoice.status != "paid") & (func.coalesce(Invoice.payment_status, "") != "paid")


def _portal_out(invoice: Invoice, today) -> dict:
    from chalicelib.core.serialize import flag, row_dict

    record = row_dict(invoice, PORTAL_INVOICE_FIELDS)
    # a 0/1 flag like every flag of the service (document 1, convention 4)
    record["is_overdue"] = flag(invoice.status != "paid" and invoice.payment_status != "paid" and invoice.due_date
                                and invoice.due_date < today)
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


def portal_financial(db, company_ids) -> dict:
    """total_invoiced (the totals of these companies' issued invoices), total_outstanding (what is still due on
    those not paid: amount_due, else total less amount_paid) and total_overdue (the part of it whose due date is
    before today in ORG_TIMEZONE): one statement."""
    return portal_financial_record(db.execute(portal_financial_select(company_ids)).one()._mapping)


def portal_financial_select(company_ids):
    """The one-row read of `portal_financial` (invoiced, outstanding, overdue), for a record_sets statement."""
    from sqlalchemy import case

    due = func.coalesce(Invoice.amount_due, Invoice.total - Invoice.amount_paid)
    outstanding = case((_unpaid(), due), else_=0)
    overdue = case((_unpaid() & (Invoice.due_date < org_today()), due), else_=0)
    return select(func.coalesce(func.sum(Invoice.total), 0).label("invoiced"),
                  func.coalesce(func.sum(outstanding), 0).label("outstanding"),
                  func.coalesce(func.sum(overdue), 0).label("overdue")).where(*_portal_scope(company_ids))


def portal_financial_record(row) -> dict:
    """`portal_financial`'s answer from its read's one row (a record or a row mapping)."""
    return {"total_invoiced": round(float(row["invoiced"]), 2),
            "total_outstanding": round(float(row["outstanding"]), 2), "total_overdue": round(float(row["overdue"]), 2)}


# ---------------------------------------------------------------- reading

def list_invoices(ctx, *, query) -> Page:
    """One page of the invoices the caller may see (filters), newest issued first, as records; the total (when
    counted) and the company, contact and budget names in one more statement (record_page)."""
    from chalicelib.areas.budgets import service as budgets_service

    stmt = in_scope(invoice_select(), visible(ctx.principal))
    for field in ("status", "company_id", "budget_id"):
        value = getattr(query, field)
        if value:
            stmt = stmt.where(getattr(Invoice, field) == value)
    if query.project_id:
        stmt = stmt.where(Invoice.budget_id.in_(budgets_service.budget_ids_of("project", query.project_id)))
    if query.deal_id:
        stmt = stmt.where(Invoice.budget_id.in_(budgets_service.budget_ids_of("deal", query.deal_id)))
    stmt = stmt.order_by(Invoice.issued_date.desc(), Invoice.created_at.desc(), Invoice.id)
    page, sets = record_page(ctx.db, stmt, query, lookups=lambda rows: invoice_lookups(ctx.db, rows))
    return replace(page, items=with_invoice_lookups(ctx.db, page.items, sets))


def get_invoice(ctx, *, invoice_id: str) -> tuple[dict, list[dict], list[dict]]:
    """(invoice with its joined names, line items, payments). A ledger-linked invoice's status is read live
    from the ledger first (service_ledger.refresh_one; a ledger failure leaves the stored status)."""
    from . import service_ledger

    invoice = load_invoice(ctx, invoice_id)
    if invoice.ledger_invoice_id:
        service_ledger.refresh_live(ctx, invoice)
    return (invoice_record(ctx.db, invoice.id, detail=True), item_records(item_rows(ctx.db, invoice.id)),
            payment_records(ctx.db, invoice.id))


# ---------------------------------------------------------------- checks

def _check_references(ctx, values: dict, invoice: Invoice | None = None) -> None:
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


def _number_taken(db, number: str, invoice_id: str | None = None) -> bool:
    stmt = select(Invoice.id).where(Invoice.invoice_number == number)
    if invoice_id:
        stmt = stmt.where(Invoice.id != invoice_id)
    return db.scalar(stmt) is not None


def next_invoice_number(db) -> str:
    """The next generated number, from the counter row (`UPDATE ... RETURNING`: the row stays locked until
    commit, so concurrent creates take consecutive numbers and a rolled-back create gives its number back).
    A number already taken by hand is skipped."""
    while True:
        value = db.execute(update(InvoiceNumberCounter).where(InvoiceNumberCounter.name == "invoice")
                           .values(last_value=InvoiceNumberCounter.last_value + 1)
                           .returning(InvoiceNumberCounter.last_value)).scalar_one()
        number = NUMBER_FORMAT.format(value)
        if not _number_taken(db, number):
            return number


def _snapshot(invoice: Invoice) -> dict:
    return {field: value_out(getattr(invoice, field)) for field in INVOICE_FIELDS if field != "updated_at"}


# ---------------------------------------------------------------- writing

def create_invoice(ctx, *, data) -> dict:
    """201 with the invoice. `invoice_number` generated when omitted; `issued_date` today in ORG_TIMEZONE
    when omitted; `currency` the budget's when omitted with a budget_id (else AUD); `generate_from_budget`
    (needs budget_id) adds the lines of the budget's type."""
    values = data.model_dump()
    generate = values.pop("generate_from_budget")
    if generate and not values.get("budget_id"):
        raise BadRequest("generate_from_budget needs a budget_id",
                         details=[{"field": "budget_id", "message": "required with generate_from_budget"}])
    values["issued_date"] = values.get("issued_date") or org_today()
    _check_dates(values, None)
    _check_references(ctx, values)
    if values.get("invoice_number"):
        if _number_taken(ctx.db, values["invoice_number"]):
            raise Conflict(f"Invoice number {values['invoice_number']} is taken")
    else:
        values["invoice_number"] = next_invoice_number(ctx.db)
    # a generation reads the budget anyway and sets the currency from there
    budget_currency = bool(values.get("budget_id")) and "currency" not in data.model_fields_set
    if budget_currency and not generate:
        values["currency"] = _budget_currency(ctx, values["budget_id"])
    invoice = _new_draft(ctx, values)
    if generate:
        service_generate.generate_from_budget(ctx, invoice, budget_currency=budget_currency)
    ctx.db.flush()
    _first_invoice_milestone(ctx, invoice)
    return invoice_record(ctx.db, invoice.id)


def _check_dates(changes: dict, invoice: Invoice | None) -> None:
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


def _budget_currency(ctx, budget_id: str) -> str:
    """The currency of a budget the caller was checked to see (budgets' `invoice_source`, its one read that
    answers it)."""
    from chalicelib.areas.budgets import service as budgets_service

    source = budgets_service.invoice_source(ctx.db, budget_id)
    return source["budget"]["currency"] if source else "AUD"  # deleted meanwhile: the insert's key refuses it


def create_draft_from_budget(ctx, *, budget_id: str, currency: str) -> str:
    """A draft invoice generated from a budget by another area's automation (proposals' onboarding on accept):
    numbered, issued today, the budget's company, lines by the budget's type (service_generate). Answers its
    id. No scope check: the caller made the budget in the same transaction. `currency`: the caller's (proposals
    pass the proposal's, which is the currency they made the budget in)."""
    invoice = _new_draft(ctx, {"budget_id": budget_id, "currency": currency,
                               "invoice_number": next_invoice_number(ctx.db), "issued_date": org_today()},
                         source="proposal_accepted")
    service_generate.generate_from_budget(ctx, invoice)
    ctx.db.flush()
    _first_invoice_milestone(ctx, invoice)
    return invoice.id


def _new_draft(ctx, values: dict, **noted) -> Invoice:
    """A draft invoice with zero totals from `values` (numbered and dated by the caller), and its `created`
    history entry (with `noted`, such as the automation that made it)."""
    invoice = Invoice(**values, status="draft", subtotal=Decimal("0"), tax=Decimal("0"), total=Decimal("0"),
                      amount_paid=Decimal("0"), amount_due=Decimal("0"), created_by=ctx.user_id)
    ctx.db.add(invoice)
    ctx.db.flush()
    history.record(ctx.db, entity_type=ENTITY, entity_id=invoice.id, action="created", actor_id=ctx.user_id,
                   changes={"invoice_number": invoice.invoice_number, "status": invoice.status,
                            "budget_id": invoice.budget_id, **noted})
    return invoice


def _first_invoice_milestone(ctx, invoice: Invoice) -> None:
    """The company's first invoice completes its client onboarding milestones with auto_source
    `first_invoice` (the onboarding area; started from the profile's or default template when needed)."""
    if not invoice.company_id:
        return
    earlier = ctx.db.scalar(select(Invoice.id).where(Invoice.company_id == invoice.company_id,
                                                     Invoice.id != invoice.id).limit(1))
    if earlier is None:
        from chalicelib.areas.onboarding import service as onboarding_service

        onboarding_service.auto_complete(ctx, company_id=invoice.company_id, source="first_invoice")


def update_invoice(ctx, *, invoice_id: str, data) -> dict:
    changes = data.changes()
    if not changes:
        raise BadRequest("At least one field is required")
    from . import service_ledger

    linking = changes.get("ledger_invoice_id")
    if linking:
        current = load_invoice(ctx, invoice_id)
        linking = linking if linking != current.ledger_invoice_id else None
        if linking:  # a ledger invoice named by hand: checked against the ledger before anything is locked
            checked_company = changes["company_id"] if "company_id" in changes else current.company_id
            _check_dates(changes, current)  # before the ledger is asked; again below on the locked row
            _check_references(ctx, changes, current)
            service_ledger.check_hand_link(ctx, current, linking, checked_company)
    invoice = service_lines.locked_invoice(ctx, invoice_id)
    _check_dates(changes, invoice)
    _check_references(ctx, changes, invoice)
    if linking:
        service_ledger.relink_still_valid(ctx, invoice, linking,
                                          checked_company if "company_id" not in changes else invoice.company_id)
    _check_ledger_held(invoice, changes)
    _check_currency_with_lines(ctx, invoice, changes)
    number = changes.get("invoice_number")
    if number and number != invoice.invoice_number and _number_taken(ctx.db, number, invoice.id):
        raise Conflict(f"Invoice number {number} is taken")
    before = _snapshot(invoice)
    if "ledger_invoice_id" in changes and changes["ledger_invoice_id"] != invoice.ledger_invoice_id:
        invoice.ledger_status = None  # a ledger id set by hand: its status is read by the next sync
    for key, value in changes.items():
        setattr(invoice, key, value)
    invoice.updated_at = utcnow()
    ctx.db.flush()
    history.record_update(ctx.db, entity_type=ENTITY, entity_id=invoice.id, actor_id=ctx.user_id, before=before,
                          after={k: v for k, v in _snapshot(invoice).items() if k in changes})
    ctx.db.flush()
    return invoice_record(ctx.db, invoice.id)


# What the ledger invoice holds and an update may not change while the invoice is linked to it: the company (the
# ledger invoice's contact) and the currency; the lines are held by service_lines.check_not_in_ledger.
LEDGER_HELD = ("company_id", "currency")


def _check_ledger_held(invoice: Invoice, changes: dict) -> None:
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


def _check_currency_with_lines(ctx, invoice: Invoice, changes: dict) -> None:
    """409 when an update changes the currency of an invoice that has lines: their amounts were priced in the
    currency they were entered in (or copied from the budget's), and a new label converts nothing (1000 USD of a
    budget relabelled GBP). Remove the lines first, or make a new invoice."""
    if "currency" not in changes or changes["currency"] == invoice.currency:
        return
    if ctx.db.scalar(select(InvoiceLineItem.id).where(InvoiceLineItem.invoice_id == invoice.id).limit(1)):
        raise Conflict(f"The invoice's lines are in {invoice.currency}: its currency cannot change while it has lines "
                       "(remove them first, or make a new invoice)")


def delete_invoice(ctx, *, invoice_id: str) -> None:
    """A ledger-linked invoice is first deleted in the ledger (a draft there) or voided (authorised or
    later): service_ledger.remove_from_ledger. Then `deleted` is logged and the invoice goes, with its lines,
    payments and billed-time links (those entries become billable again)."""
    from . import service_ledger

    invoice = load_invoice(ctx, invoice_id)
    if invoice.ledger_invoice_id:
        service_ledger.remove_from_ledger(ctx, invoice)
    invoice = service_lines.locked_invoice(ctx, invoice_id)
    history.record(ctx.db, entity_type=ENTITY, entity_id=invoice.id, action="deleted", actor_id=ctx.user_id,
                   changes={"invoice_number": invoice.invoice_number, "status": invoice.status,
                            "total": value_out(invoice.total)})
    ctx.db.delete(invoice)
    ctx.db.flush()


# ---------------------------------------------------------------- mapping rules

def list_rules(ctx) -> list[dict]:
    return rule_records(ctx.db)


def upsert_rule(ctx, *, service_type_id: str, data) -> dict:
    """Create or replace the rule of a service type (404 when it is not an item of the service_type list)."""
    if not list_items_among(ctx.db, "service_type", [service_type_id]):
        raise NotFound("Service type not found")
    values = data.model_dump()
    # concurrent first upserts of one service type: one inserts, the other finds the row (never a 409)
    insert_ignore(ctx.db, InvoiceMappingRule, {"service_type_id": service_type_id, **values},
                  conflict=("service_type_id",))
    rule = ctx.db.get(InvoiceMappingRule, service_type_id, with_for_update=True, populate_existing=True)
    for key, value in values.items():
        setattr(rule, key, value)
    rule.updated_at = utcnow()
    ctx.db.flush()
    return rule_records(ctx.db, service_type_id)[0]


def account_codes(db, service_type_ids) -> dict[str, str]:
    """`{service_type_id: ledger_account_code}` of the mapping rules (one query)."""
    ids = {sid for sid in service_type_ids or () if sid}
    if not ids:
        return {}
    return dict(db.execute(select(InvoiceMappingRule.service_type_id, InvoiceMappingRule.ledger_account_code)
                           .where(InvoiceMappingRule.service_type_id.in_(ids))).all())
