"""Invoices: list, detail, create (optionally generated from a budget), update, delete, mapping rules, and
the reads other areas make (budgets' invoiced amounts).

The checks of a create and an update (references, dates, what the ledger holds) live in service_checks.py; line
items and totals in service_lines.py; the generation from a budget in service_generate.py; the ledger's moves in
service_ledger.py and its syncs in service_ledger_sync.py; the notifications (created, paid, overdue) in
service_notices.py; the client portal's invoices in service_portal.py (the portal area calls them through this
module).

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
from chalicelib.core.errors import BadRequest, Conflict, NotFound
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_ignore, lock_row
from chalicelib.core.lookup import list_items_among
from chalicelib.core.query import Page, in_scope, record_page
from chalicelib.core.serialize import row_dict, value_out
from chalicelib.core.timeutil import org_today

from . import service_generate, service_lines, service_notices
from .models import Invoice, InvoiceLineItem, InvoiceMappingRule, InvoiceNumberCounter
from .queries import (INVOICE_FIELDS, invoice_lookups, invoice_record, invoice_select, is_paid, item_records,
                      item_rows, load_invoice, payment_records, rule_records, visible, with_invoice_lookups)
from .queries import invoice_seen_by  # noqa: F401 - the notes area asks who of a note's mentioned users see the record
from .queries import budget_invoice_count  # noqa: F401 - budgets refuse to delete a budget that invoices name
from .service_checks import (budget_currency, check_budget_currency, check_currency_with_lines, check_dates,
                             check_ledger_held, check_references, hold_budget_currency, wrong_currency)
from .service_portal import (portal_financial_record,  # noqa: F401 - other areas call it through the service
                             portal_financial_select, portal_invoice, portal_invoice_ids, portal_invoices)

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


def invoiced_by_currency(db, budget_ids) -> dict:
    """`{currency: (invoiced, collected)}`: the totals and amounts paid of the invoices of these budgets (a SELECT of
    ids) that are not voided, by the invoice's own currency (one grouped statement; an invoice made before the rule
    "an invoice of a budget is in its currency" can be in another money than its budget); for a project's
    profitability, which never adds two currencies together."""
    rows = db.execute(select(Invoice.currency, func.coalesce(func.sum(Invoice.total), 0),
                             func.coalesce(func.sum(Invoice.amount_paid), 0))
                      .where(Invoice.budget_id.in_(budget_ids), Invoice.status != "voided")
                      .group_by(Invoice.currency)).all()
    return {currency: (invoiced, collected) for currency, invoiced, collected in rows}


check_budget_type_change = service_generate.check_type_change  # budgets: a type change keeps its invoices' rules


def live_invoice_currencies(db, budget_id: str) -> set[str]:
    """The currencies of the budget's invoices that are not voided (one query); budgets refuse a currency change
    that would leave them in another money than the budget's."""
    return set(db.scalars(select(Invoice.currency).where(Invoice.budget_id == budget_id, Invoice.status != "voided")
                          .distinct()))


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
    return replace(page, items=with_invoice_lookups(ctx.db, page.items, sets, principal=ctx.principal))


def get_invoice(ctx, *, invoice_id: str) -> tuple[dict, list[dict], list[dict]]:
    """(invoice with its joined names, line items, payments). A ledger-linked invoice's status is read live
    from the ledger first (service_ledger_sync.refresh_live; a ledger failure leaves the stored status), unless it
    was read or asked for less than LIVE_READ_SECONDS ago (session 26)."""
    from . import service_ledger_sync

    invoice = load_invoice(ctx, invoice_id)
    if invoice.ledger_invoice_id:
        service_ledger_sync.refresh_live(ctx, invoice)
    return (invoice_record(ctx.db, invoice.id, detail=True, principal=ctx.principal),
            item_records(item_rows(ctx.db, invoice.id)), payment_records(ctx.db, invoice.id))


# ---------------------------------------------------------------- checks

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
    return row_dict(invoice, [field for field in INVOICE_FIELDS if field != "updated_at"])


# ---------------------------------------------------------------- writing

def create_invoice(ctx, *, data) -> dict:
    """201 with the invoice. `invoice_number` generated when omitted; `issued_date` today in ORG_TIMEZONE
    when omitted; with a budget_id the invoice is in the budget's currency (taken when omitted, another one named
    is a 400 on `currency`), else AUD by default; `generate_from_budget` (needs budget_id) adds the lines of the
    budget's type. A hand-made invoice of a retainer budget that has an invoice not voided is a 409, as a generation
    is (service_generate.check_live_on_budget)."""
    values = data.model_dump()
    generate = values.pop("generate_from_budget")
    if generate and not values.get("budget_id"):
        raise BadRequest("generate_from_budget needs a budget_id",
                         details=[{"field": "budget_id", "message": "required with generate_from_budget"}])
    values["issued_date"] = values.get("issued_date") or org_today()
    check_dates(values, None)
    check_references(ctx, values)
    named_currency = "currency" in data.model_fields_set
    if values.get("budget_id") and not generate:  # a generation reads the budget anyway and checks it there
        theirs = budget_currency(ctx, values["budget_id"])  # None: deleted meanwhile, the insert's key refuses it
        if theirs and named_currency and values["currency"] != theirs:
            raise wrong_currency(theirs)
        values["currency"] = theirs or values["currency"]
    if values.get("invoice_number"):
        if _number_taken(ctx.db, values["invoice_number"]):
            raise Conflict(f"Invoice number {values['invoice_number']} is taken")
    else:
        values["invoice_number"] = next_invoice_number(ctx.db)
    if values.get("budget_id") and not generate:  # a hand-made invoice meets a generation's rules, its lock taken
        # after the number counter's row as a generation's is (after its INSERT): the two never wait crosswise
        service_generate.check_live_on_budget(ctx, values["budget_id"])
    invoice = _new_draft(ctx, values)
    if generate:
        service_generate.generate_from_budget(ctx, invoice, budget_currency=not named_currency)
    ctx.db.flush()
    _first_invoice_milestone(ctx, invoice)
    service_notices.tell_created(ctx, invoice)
    return invoice_record(ctx.db, invoice.id, principal=ctx.principal)


def create_draft_from_budget(ctx, *, budget_id: str, currency: str) -> str:
    """A draft invoice generated from a budget by another area's automation (proposals' onboarding on accept):
    numbered, issued today, the budget's company, lines by the budget's type (service_generate). Answers its
    id. No scope check: the caller made the budget in the same transaction. `currency`: the caller's (proposals
    pass the proposal's, which is the currency they made the budget in). It tells nobody (`invoice_created` is for
    an invoice staff make): the project's owner, the proposal's, is told `proposal_accepted` of the accept that made
    it."""
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

    current = load_invoice(ctx, invoice_id)
    linking = changes.get("ledger_invoice_id")
    linking = linking if linking and linking != current.ledger_invoice_id else None
    if linking:  # a ledger invoice named by hand: checked against the ledger before anything is locked
        checked_company = changes["company_id"] if "company_id" in changes else current.company_id
        check_dates(changes, current)  # before the ledger is asked; again below on the locked row
        check_references(ctx, changes, current)
        check_budget_currency(ctx, changes, current)  # its hold ends with the connection the ledger call releases
        ledger_state = service_ledger.check_hand_link(ctx, current, linking, checked_company)
        current = load_invoice(ctx, invoice_id)  # in scope still, once the ledger has answered
    known: dict = {}  # the budget currencies read (and held) in this transaction: one read of a budget
    hold_budget_currency(ctx, changes, current, known)  # the budget's row before the invoice's (service_checks)
    invoice = lock_row(ctx.db, Invoice, invoice_id, missing="Invoice")  # as service_lines.locked_invoice
    check_dates(changes, invoice)
    check_references(ctx, changes, invoice)
    # the 400 of a currency other than the budget's comes before the 409s below (lines priced in the currency, the
    # ledger holding it): undoing those (removing the lines, voiding the ledger invoice) would not make it allowed
    check_budget_currency(ctx, changes, invoice, known)
    if linking:
        service_ledger.relink_still_valid(ctx, invoice, linking,
                                          checked_company if "company_id" not in changes else invoice.company_id,
                                          ledger_state, changes.get("currency") or invoice.currency)
    check_ledger_held(invoice, changes)
    check_currency_with_lines(ctx, invoice, changes)
    number = changes.get("invoice_number")
    if number and number != invoice.invoice_number and _number_taken(ctx.db, number, invoice.id):
        raise Conflict(f"Invoice number {number} is taken")
    live_on = service_generate.becomes_live_on(changes, invoice)
    if live_on:  # out of `voided`, or a live invoice moved: the retainer and fixed-price rules of a generation
        service_generate.check_live_on_budget(ctx, live_on, invoice_id=invoice.id, subtotal=invoice.subtotal)
    before = _snapshot(invoice)
    if "ledger_invoice_id" in changes and changes["ledger_invoice_id"] != invoice.ledger_invoice_id:
        # a ledger id set by hand: its status is read by the next sync, or the next detail (the last read was of
        # another ledger invoice: service_ledger_sync.LIVE_READ_SECONDS, session 26)
        invoice.ledger_status, invoice.ledger_synced_at, invoice.ledger_asked_at = None, None, None
    for key, value in changes.items():
        setattr(invoice, key, value)
    if is_paid(invoice.status, invoice.payment_status) or is_paid(before["status"], before["payment_status"]):
        # paid, or no longer paid: the overdue scan's mark is cleared, so an invoice unpaid again (a bounced payment
        # set back to sent) with the same due date is told overdue again, once per unpaid spell (session 27)
        invoice.overdue_noticed_for = None
    invoice.updated_at = utcnow()
    ctx.db.flush()
    # the fields sent, and the ledger status a hand link clears (session 25: the entry left it out)
    history.record_update(ctx.db, entity_type=ENTITY, entity_id=invoice.id, actor_id=ctx.user_id, before=before,
                          after={k: v for k, v in _snapshot(invoice).items() if k in changes or k == "ledger_status"})
    ctx.db.flush()
    if invoice.status == "paid" and not is_paid(before["status"], before["payment_status"]):
        service_notices.tell_paid_by_hand(ctx, invoice)  # it became paid (not already paid in the ledger)
    if invoice.company_id and invoice.company_id != before.get("company_id"):
        # given to a company by update (made without one): it may be that company's first invoice (document 2)
        _first_invoice_milestone(ctx, invoice)
    return invoice_record(ctx.db, invoice.id, principal=ctx.principal)


def delete_invoice(ctx, *, invoice_id: str) -> None:
    """A ledger-linked invoice is first deleted in the ledger (a draft there) or voided (authorised or
    later): service_ledger.remove_from_ledger. Then `deleted` is logged and the invoice goes, with its lines,
    payments and billed-time links (those entries become billable again), and its notes (the notes area: one
    statement, and one for who wrote them in the portal; session 23)."""
    from chalicelib.areas.notes import service as notes_service  # another area: imported lazily

    from . import service_ledger

    invoice = load_invoice(ctx, invoice_id)
    if invoice.ledger_invoice_id:
        service_ledger.remove_from_ledger(ctx, invoice)
    invoice = service_lines.locked_invoice(ctx, invoice_id)
    history.record(ctx.db, entity_type=ENTITY, entity_id=invoice.id, action="deleted", actor_id=ctx.user_id,
                   changes={"invoice_number": invoice.invoice_number, "status": invoice.status,
                            "total": value_out(invoice.total)})
    notes_service.records_deleted(ctx.db, "invoice", [invoice.id])
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
    changed = {key: value for key, value in values.items() if getattr(rule, key) != value}
    if changed:  # the rule sent back as read (or as just inserted) writes nothing: updated_at stays (session 25)
        for key, value in changed.items():
            setattr(rule, key, value)
        rule.updated_at = utcnow()
        ctx.db.flush()
    return rule_records(ctx.db, service_type_id)[0]


def service_type_uses(item_id: str):
    """A scalar count of the invoice lines naming service type `item_id` (no foreign key: a deleted item left them
    naming nothing, and the ledger's account mapping went with it): the config lists area refuses to delete a
    service type in use (session 25)."""
    return select(func.count()).select_from(InvoiceLineItem).where(InvoiceLineItem.service_type_id == item_id) \
        .scalar_subquery()
