"""Budgets: list, detail, create, update, delete, totals for other areas, and a project's profitability.

Line items live in service_line_items.py; the client portal's budgets in service_portal.py (the portal area
calls them through this module).

A budget belongs to a project or a deal (`resource_type`, `resource_id`). Scoping: a budget of a
project is seen by those who see the project (projects' scoping); a budget of a deal by every holder
of budgets:view (deals have no record scoping). Other areas are reached through their `service`,
imported inside the function that needs it: projects (visibility, a project's company), deals (deal and company
checks, company names), tasks (titles, task checks), timesheets (logged hours and time entries, and the entries a budget
moved to a project takes along).
Money is Decimal end to end: `amount = quantity * unit_price` computed exactly and rounded half up to the cent
(`line_amount`, as proposals' items and the ledger's lines), stored as Numeric.
"""
from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from sqlalchemy import func, select

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict, NotFound
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_row
from chalicelib.core.lookup import ids_read
from chalicelib.core.models import HistoryEntry, User
from chalicelib.core.money import line_amount
from chalicelib.core.query import Page, in_scope, record_page, record_sets
from chalicelib.core.serialize import row_dict, value_out

from .models import CANCELLED, Budget, BudgetLineItem  # CANCELLED: invoices and timesheets read it here too
from .queries import (BUDGET_FIELDS, ENTITY, budget_lookups, budget_record, budget_select, item_select,
                      line_item_totals, load_budget, visible, with_budget_lookups, with_item_lookups)
from .queries import budget_seen_by  # noqa: F401 - the notes area asks who of a note's mentioned users see the record
from .service_portal import (portal_approve, portal_budget, portal_budget_ids,  # noqa: F401 - other areas call it through the service
                             portal_budgets)

# A line's amount is core.money.line_amount (to the cent, half up): a budget's lines add up to what the proposal
# priced and the invoice bills (1.5 x 33.33 is 50.00: three such lines are 150.00, not 149.985 rounded to 149.99).


# ---------------------------------------------------------------- for other areas (timesheets)

def visible_budget_exists(ctx, budget_id: str) -> bool:
    """Whether the budget exists and the caller may see it (one query); for the checks of a write about to name it
    (timesheets, invoices). The row is share-locked (FOR KEY SHARE, `lock_row`): a delete of the budget in progress
    (`delete_budget` locks the row FOR UPDATE before it clears the time entries naming it) is waited for and then
    answers False, and a delete that comes after waits for this write's transaction, then clears what it wrote."""
    return visible_budget_resource(ctx, budget_id) is not None


def visible_budget_resource(ctx, budget_id: str) -> tuple[str, str, str] | None:
    """`(resource_type, resource_id, status)` of the budget when it exists and the caller may see it, else None: the
    check of `visible_budget_exists` (the same one statement, the same FOR KEY SHARE lock) answering what the budget
    belongs to, for a time entry that must be on its budget's project (timesheets, session 24), and its status, for a
    time entry that is not logged on a cancelled budget (timesheets, session 31): the lock waits for a status change in
    progress (`update_budget` locks the row FOR UPDATE), so the status answered is the one it commits. A budget is seen
    with `budgets:view` as well as the row scope (session 29: a caller whose budgets permission is none named any
    budget of their scope): None, and no statement, without it (a job's context, no principal, is not asked)."""
    if not ctx.reads("budgets"):
        return None
    budget = lock_row(ctx.db, Budget, budget_id, where=visible(ctx.principal), key_share=True)
    return None if budget is None else (budget.resource_type, budget.resource_id, budget.status)


def budget_resource(db, budget_id: str) -> tuple[str, str] | None:
    """`(resource_type, resource_id)` of the budget, or None when there is none (one query; no scoping, no lock): for a
    budget a time entry names already, whose project changes (timesheets, session 24). Not locked: a delete of the
    budget may be waiting for that entry's row, which the caller holds."""
    row = db.execute(select(Budget.resource_type, Budget.resource_id).where(Budget.id == budget_id)).first()
    return None if row is None else (row.resource_type, row.resource_id)


def line_item_budget(db, line_item_id: str) -> tuple[str, str] | None:
    """`(budget_id, budget status)` of a line item, or None when no such item (one query). The item's row is
    share-locked (FOR KEY SHARE OF the item alone), as `visible_budget_exists` locks the budget: `delete_line_item`
    locks the item FOR UPDATE before it clears the time entries naming it, so a write naming the item and its delete
    take turns. Call it only for an item the write names anew (not one its row names already: the delete waits for
    that row, and this lock would wait for the delete). The budget's status is read, not locked (session 31: a time
    entry is not logged on a line item of a cancelled budget): a caller whose entry names the budget already holds
    the entry's row, which `delete_budget` and `delete_line_item` wait for while they hold the budget's; a lock on
    the budget here would close that circle. A caller naming the budget anew has its status from
    `visible_budget_resource`, locked."""
    row = db.execute(select(BudgetLineItem.budget_id, Budget.status)
                     .join(Budget, Budget.id == BudgetLineItem.budget_id).where(BudgetLineItem.id == line_item_id)
                     .with_for_update(read=True, key_share=True, of=BudgetLineItem)).first()
    return None if row is None else (row.budget_id, row.status)


# ---------------------------------------------------------------- for other areas (invoices)

def visible_budget_ids(principal):
    """A SELECT of the ids of the budgets the principal may see (None: all), for invoices' scoping."""
    clause = visible(principal)
    return None if clause is None else select(Budget.id).where(clause)


def budget_ids_of(resource_type: str, resource_id: str):
    """A SELECT of the ids of the budgets of a project or a deal (invoices' project_id / deal_id filters)."""
    return select(Budget.id).where(Budget.resource_type == resource_type, Budget.resource_id == resource_id)


def _budget_briefs_statement(budget_in):
    return select(Budget.id, Budget.name, Budget.resource_type, Budget.resource_id, Budget.po_number).where(
        budget_in(Budget.id))


def budget_briefs_select(db, budget_ids):
    """The read of budget briefs (rows id, name, resource_type, resource_id, po_number; built once per
    process), None without ids: for a read sent with others in one round trip (core.query.record_sets)."""
    return ids_read(db, _budget_briefs_statement, "budget_brief_ids", budget_ids or ())


def invoice_source(db, budget_id: str) -> dict | None:
    """What an invoice generated from a budget needs (two queries; no scoping, the caller checked it):
    `{budget: {id, name, budget_type, status, total_amount (Decimal or None), company_id, currency}, items: [{id,
    description, quantity, unit_price, amount, service_type_id}]}` in position order, or None."""
    budget = db.scalar(select(Budget).where(Budget.id == budget_id))
    if budget is None:
        return None
    items = db.scalars(select(BudgetLineItem).where(BudgetLineItem.budget_id == budget_id)
                       .order_by(BudgetLineItem.position, BudgetLineItem.created_at, BudgetLineItem.id)).all()
    return {"budget": {field: getattr(budget, field) for field in
                       ("id", "name", "budget_type", "status", "total_amount", "company_id", "currency")},
            "items": [{field: getattr(item, field) for field in
                       ("id", "description", "quantity", "unit_price", "amount", "service_type_id")} for item in items]}


def held_currency(db, budget_id: str) -> str | None:
    """The budget's currency, its row held until the transaction ends (`SELECT ... FOR KEY SHARE`, the lock the
    invoice's foreign key takes anyway), or None when there is no such budget (one statement; no scoping: the caller
    checks it). For an invoice about to be written in the budget's money: a currency change (`update_budget` locks the
    row FOR UPDATE) waits for that invoice's transaction and then counts its invoice, and an invoice's check that
    comes second waits for the change and reads the new currency; invoices of one budget never wait for each other."""
    return db.scalar(select(Budget.currency).where(Budget.id == budget_id).with_for_update(read=True, key_share=True))


# ---------------------------------------------------------------- reading

def list_budgets(ctx, *, query) -> Page:
    """One page of the budgets the caller may see (filters), newest first, with the total."""
    stmt = in_scope(budget_select(), visible(ctx.principal))
    for field in ("resource_type", "resource_id", "company_id", "status"):
        value = getattr(query, field)
        if value:
            stmt = stmt.where(getattr(Budget, field) == value)
    stmt = stmt.order_by(Budget.created_at.desc(), Budget.id)
    page, sets = record_page(ctx.db, stmt, query, lookups=lambda rows: budget_lookups(ctx.db, rows))
    return replace(page, items=with_budget_lookups(page.items, sets))


def get_budget(ctx, *, budget_id: str) -> tuple[dict, list[dict], list[dict], int]:
    """(the budget, its line items, its newest time entries (at most 500), the number of its time entries) in
    three statements whatever the number of items and entries: the budget, read and scope-checked; then its
    items, entries, entry count, lookups, the items' approved hours and invoiced amounts in one (record_sets);
    then the titles of the tasks the caller may read (tasks' `visible_task_titles`: `tasks:view` and tasks' scope;
    another task's `task_title` is null). The whole list of a budget's entries is paged at /api/time-entries?budget_id=."""
    from chalicelib.areas.invoices import service as invoices_service
    from chalicelib.areas.tasks import service as tasks_service
    from chalicelib.areas.timesheets import service as timesheets_service

    found = ctx.db.scalars(in_scope(budget_select().where(Budget.id == budget_id), visible(ctx.principal))).first()
    if found is None:
        raise NotFound("Budget not found")
    budget = row_dict(found, BUDGET_FIELDS)
    line_ids = select(BudgetLineItem.id).where(BudgetLineItem.budget_id == budget_id)
    sets = record_sets(ctx.db, items=item_select(budget_id), **timesheets_service.budget_entry_reads(budget_id),
                       item_hours=timesheets_service.approved_hours_select(line_ids),
                       invoiced=invoices_service.invoiced_by_line_item_select(line_ids),
                       **budget_lookups(ctx.db, [budget]))
    with_budget_lookups([budget], sets)
    items, entries = sets["items"], sets["entries"]
    # a task out of the caller's task scope keeps its id (the budget's own data) but not its title (audit 7)
    titles = tasks_service.visible_task_titles(ctx, [entry["task_id"] for entry in entries if entry["task_id"]]
                                               + [item["task_id"] for item in items if item["task_id"]])
    for entry in entries:
        entry["task_title"] = titles.get(entry["task_id"])
    with_item_lookups(items, titles, timesheets_service.line_item_hours(sets["item_hours"]),
                      invoices_service.line_item_invoiced(sets["invoiced"]))
    return budget, items, entries, int(sets["entries_total"][0]["n"])


# ---------------------------------------------------------------- checks

def _check_references(ctx, values: dict, budget: Budget | None = None) -> None:
    """resource (a project or deal the caller can see), company_id (a company the caller can see), owner_id (an
    active user): 400 with details otherwise. On update, unchanged values are not re-checked."""
    def changed(field):
        return field in values and (budget is None or values[field] != getattr(budget, field))

    details = []
    if changed("resource_type") or changed("resource_id"):
        resource_type = values.get("resource_type", budget.resource_type if budget else None)
        resource_id = values.get("resource_id", budget.resource_id if budget else None)
        if not _resource_visible(ctx, resource_type, resource_id):
            # the field sent: resource_type alone, changed so that the stored resource_id names no such record, is
            # named itself (session 32: it named resource_id, not sent; as the tasks area names a task's resource)
            details.append({"field": "resource_id", "message": f"must be a {resource_type} you can see"}
                           if "resource_id" in values or budget is None else
                           {"field": "resource_type", "message": f"the budget's resource_id is not a {resource_type} "
                                                                 "you can see"})
    if changed("company_id") and values["company_id"]:
        from chalicelib.areas.deals import service as deals_service

        # a company is seen with `deals:view` (decisions.md section 5; session 29: existence alone was asked)
        details += deals_service.unseen_references(ctx, values, ("company_id",), changed)
    if changed("owner_id") and values["owner_id"]:
        if ctx.db.scalar(select(User.id).where(User.id == values["owner_id"], User.is_active.is_(True))) is None:
            details.append({"field": "owner_id", "message": "must be an active user"})
    if details:
        raise BadRequest("Invalid budget references", details=details)


def _resource_visible(ctx, resource_type: str, resource_id: str) -> bool:
    """Whether a budget may name the resource (create, or a change of it); a project or deal is share-locked
    against a delete in progress (projects' link_project, deals' link_deal)."""
    if resource_type == "project":
        from chalicelib.areas.projects import service as projects_service

        try:
            projects_service.link_project(ctx, resource_id)  # projects:view and the row scope (session 29)
        except NotFound:
            return False
        return True
    from chalicelib.areas.deals import service as deals_service

    # deals:view and share-locked against a delete of the deal in progress (deals' link_deal), as a project is
    return deals_service.link_deal(ctx, resource_id)


# `approved` is the client's approval (decisions.md section 9: "the client's approval through the portal moves a budget
# from pending_approval to approved"; document 3: approved by a portal collaborator or admin, logged in history):
# only `portal_approve` records it. A staff write that would set it is a 400; a budget already approved sent back
# unchanged, and a move out of approved, stay free (docs/decisions/budgets.md, "Types and statuses").
from .service_line_items import CLIENT_APPROVED, check_approval_kept  # noqa: E402 - beside the rule it names


def _check_status(status: str | None, stored: str | None = None) -> None:
    """400 naming `status` when a staff create or update would set `approved` (a stored `approved` sent back passes)."""
    if status == CLIENT_APPROVED and stored != CLIENT_APPROVED:
        raise BadRequest("Invalid budget status", details=[
            {"field": "status", "message": "approved is the client's approval, given in the portal"}])


def _snapshot(budget: Budget) -> dict:
    return row_dict(budget, [field for field in BUDGET_FIELDS if field != "updated_at"])


# ---------------------------------------------------------------- writing

def create_budget(ctx, *, data) -> dict:
    values = data.model_dump()
    _check_status(values["status"])
    _check_references(ctx, values)
    budget = Budget(**values, owner_id=ctx.user_id, created_by=ctx.user_id)
    ctx.db.add(budget)
    ctx.db.flush()
    history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="created", actor_id=ctx.user_id,
                   changes={"name": budget.name, "status": budget.status})
    if budget.status == "pending_approval":
        _tell_portal_pending(ctx, budget)
    ctx.db.flush()
    return budget_record(ctx, budget.id)


def _tell_portal_pending(ctx, budget: Budget) -> None:
    """A budget that is (created or moved to) `pending_approval`: the client's portal users are told."""
    from chalicelib.areas.portal import service as portal_service

    portal_service.budget_pending_approval(ctx, budget_id=budget.id, name=budget.name,
                                           resource_type=budget.resource_type, resource_id=budget.resource_id)


def create_budget_for(ctx, *, name: str, project_id: str, company_id: str | None, currency: str,
                      owner_id: str | None, items: list[dict], budget_type: str | None = None) -> str:
    """A draft budget of a project made by another area's automation (proposals' onboarding on accept), with
    its line items (description, quantity, unit_price, service_type_id) in one multi-row INSERT; each amount
    rounded to the cent (`line_amount`) and the total their sum (the proposal's total). Answers its id."""
    from chalicelib.core.locks import insert_rows

    budget = Budget(name=name[:200], resource_type="project", resource_id=project_id, company_id=company_id,
                    currency=currency, status="draft", owner_id=owner_id, created_by=owner_id,
                    budget_type=budget_type)
    ctx.db.add(budget)
    ctx.db.flush()
    rows, total = [], Decimal("0")
    for position, item in enumerate(items):
        amount = line_amount(item["quantity"], item["unit_price"])
        total += amount
        rows.append({"budget_id": budget.id, "description": item["description"], "quantity": item["quantity"],
                     "unit_price": item["unit_price"], "amount": amount,
                     "service_type_id": item.get("service_type_id"), "position": position})
    insert_rows(ctx.db, BudgetLineItem, rows)
    budget.total_amount = total
    history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="created", actor_id=None,
                   changes={"name": budget.name, "status": budget.status})
    ctx.db.flush()
    return budget.id


def update_budget(ctx, *, budget_id: str, data) -> dict:
    changes = data.changes()
    if not changes:
        raise BadRequest("At least one field is required")
    budget = load_budget(ctx, budget_id)
    lock_row(ctx.db, Budget, budget.id, missing="Budget")  # a status transition is checked and recorded on the current row
    if "status" in changes:
        _check_status(changes["status"], budget.status)
    _check_references(ctx, changes, budget)
    check_approval_kept(budget, changes)  # the client's approval covers total_amount and currency (session 22)
    _check_approval_stays_with_client(ctx.db, budget, changes)  # and the client who gave it (session 25)
    if "currency" in changes and changes["currency"] != budget.currency:
        _check_currency_of_invoices(ctx, budget, changes["currency"])
    _check_type_of_invoices(ctx, budget, changes)
    _entries_follow(ctx, budget, changes)
    before = _snapshot(budget)
    resource_before = (budget.resource_type, budget.resource_id)
    for key, value in changes.items():
        setattr(budget, key, value)
    budget.updated_at = utcnow()
    ctx.db.flush()
    status_change = history.record_update(ctx.db, entity_type=ENTITY, entity_id=budget.id, actor_id=ctx.user_id,
                                          before=before,
                                          after={k: v for k, v in _snapshot(budget).items() if k in changes})
    if status_change is not None and budget.status == "pending_approval":
        _tell_portal_pending(ctx, budget)
    elif budget.status == "pending_approval" and (move := _client_move(ctx.db, resource_before, budget)):
        old_company, new_company = move
        if old_company is not None:
            # no longer in the old client's portal (it answers 404 for it): the notice told there is withdrawn
            # before the new client is told (session 29; a deleted or drafted budget's are: sessions 24, 28)
            from chalicelib.areas.portal import service as portal_service  # another area: imported lazily

            portal_service.budget_withdrawn(ctx.db, budget_id=budget.id)
        if new_company is not None:
            _tell_portal_pending(ctx, budget)  # still awaiting approval, now in another client's portal (session 24)
    elif status_change is not None and budget.status == "draft":
        # back to draft: the portal no longer shows it (session 28), so its pending notices are withdrawn, as a
        # deleted budget's are (they pointed at a budget the portal answers 404 for)
        from chalicelib.areas.portal import service as portal_service  # another area: imported lazily

        portal_service.budget_withdrawn(ctx.db, budget_id=budget.id)
    ctx.db.flush()
    return budget_record(ctx, budget.id)


def _check_approval_stays_with_client(db, budget: Budget, changes: dict) -> None:
    """409 when an `approved` budget that stays approved is moved (its resource changed) from a record of client A (a
    company set) to one of another company or of none (session 25): A's approval would be listed in B's portal (or
    carried there by a second move). A move within A stays free, as does a move that takes the budget out of
    approved in the same request (staff may; set `pending_approval` and the new client is asked) and a budget on a
    companyless record. The two companies are read only for such a move (one query each); the new record is
    share-locked by `_check_references` (a move of it to another company waits, or is waited for and read)."""
    if budget.status != CLIENT_APPROVED or changes.get("status", budget.status) != CLIENT_APPROVED:
        return
    resource_before = (budget.resource_type, budget.resource_id)
    resource_after = (changes.get("resource_type", budget.resource_type), changes.get("resource_id", budget.resource_id))
    if resource_after == resource_before:
        return
    company = _client_company(db, *resource_before)
    if company is not None and _client_company(db, *resource_after) != company:
        raise Conflict("The client approved this budget in its portal: it cannot move to another client's (or a "
                       "companyless) project or deal while it is approved (set its status back to pending_approval in "
                       "the same request, and the new client is asked, or move it within this client)")


def _client_move(db, resource_before: tuple[str, str], budget: Budget) -> tuple[str | None, str | None] | None:
    """(old, new) client company when the budget's move (its resource changed) took it from one client company's
    portal to another's, or into or out of any (two queries, only when the resource changed); None otherwise. A
    budget still pending approval moved to a client is one it may approve and was never told about; moved away, the
    old client's notice points at a budget its portal answers 404 for. A move within one company tells nobody
    (portal notices have no de-dup window)."""
    resource_after = (budget.resource_type, budget.resource_id)
    if resource_after == resource_before:
        return None
    company, before = _client_company(db, *resource_after), _client_company(db, *resource_before)
    return (before, company) if company != before else None


def _client_company(db, resource_type: str, resource_id: str) -> str | None:
    """The client company of a project or deal (the portal's scope of its budgets), or None (one query)."""
    if resource_type == "project":
        from chalicelib.areas.projects import service as projects_service

        return (projects_service.project_companies(db, [resource_id]).get(resource_id) or (None, None))[1]
    from chalicelib.areas.deals import service as deals_service

    return (deals_service.deal_facts(db, resource_id) or {}).get("company_id")


def _entries_follow(ctx, budget: Budget, changes: dict) -> None:
    """A budget moving to project P (from another project or a deal) takes its time entries along (session 24; an
    entry on a project's budget is on that project, docs/decisions/timesheets.md): entries naming it on another
    project are a 409, nothing changed (they would count in one project's profitability and be billed on P's
    invoices); entries naming it without a project take P. A move to a deal leaves them (a deal's budget leaves the
    project free). The timesheets area's `budget_to_project`, one or two statements, after the budget's row is locked
    FOR UPDATE (`update_budget`): that lock conflicts with the FOR KEY SHARE a time entry's write takes on a budget
    it names (`visible_budget_resource`), so such a write is waited for and counted, or waits and reads P; FOR NO
    KEY UPDATE would not conflict with it. Invoices follow their budget (their scope is the budget's)."""
    resource_type = changes.get("resource_type", budget.resource_type)
    resource_id = changes.get("resource_id", budget.resource_id)
    if resource_type != "project" or (resource_type, resource_id) == (budget.resource_type, budget.resource_id):
        return
    from chalicelib.areas.timesheets import service as timesheets_service

    elsewhere = timesheets_service.budget_to_project(ctx.db, budget_id=budget.id, project_id=resource_id)
    if elsewhere:
        entries = f"{elsewhere} time entr{'ies' if elsewhere != 1 else 'y'}"
        raise Conflict(f"{entries} on this budget {'are' if elsewhere != 1 else 'is'} on another project than "
                       f"{resource_id}: move {'them' if elsewhere != 1 else 'it'} off the budget or onto that project "
                       "first")


def _check_currency_of_invoices(ctx, budget: Budget, currency: str) -> None:
    """409 when invoices of the budget that are not voided are in another currency than the one it moves to: what
    they billed is in their money, and the budget's fixed price left to bill, its lines' invoiced amounts and the
    project's profitability would subtract or add them as the new one. Void them (or move them) first."""
    from chalicelib.areas.invoices import service as invoices_service

    others = invoices_service.live_invoice_currencies(ctx.db, budget.id) - {currency}
    if others:
        raise Conflict(f"The budget has invoices in {', '.join(sorted(others))}: its currency cannot become {currency}"
                       " (void those invoices first)")


def _check_type_of_invoices(ctx, budget: Budget, changes: dict) -> None:
    """409 when `budget_type` changes to a type whose invoicing rule the budget's invoices that are not voided would
    break (invoices' `check_budget_type_change`: a retainer invoiced once, a fixed price billing at most its price;
    session 31): the rules generation and every invoice made live keep would no longer hold (a sprints budget invoiced
    twice made a retainer). The price is the budget's total_amount after the update, else the sum of its lines. Only
    on a real type change (the stored type sent back passes); one or two statements then."""
    kind = changes.get("budget_type")
    if "budget_type" not in changes or kind == budget.budget_type or kind not in ("retainer", "fixed_price"):
        return
    from chalicelib.areas.invoices import service as invoices_service

    price = changes.get("total_amount", budget.total_amount)
    if price is None:
        price = line_item_totals(ctx.db, budget.id)[1]
    invoices_service.check_budget_type_change(ctx.db, budget.id, kind, Decimal(price or 0),
                                              changes.get("currency") or budget.currency)


def delete_budget(ctx, *, budget_id: str) -> None:
    """Logs `deleted`, clears the budget from time entries (timesheets), then removes it and its items, and its notes
    (the notes area: one statement; session 23). A budget that invoices name (any status, voided included) is a 409,
    nothing changed (session 24): the invoice would lose its budget (ON DELETE SET NULL), so its project, its scope
    (an invoice without a budget is seen by every holder of invoices:view) and its place in the project's
    profitability. They are counted after the budget's row is locked: an invoice being written that names the budget
    holds the row (its key's FOR KEY SHARE, or invoices' check of the budget), so it is waited for and counted, and
    one that comes after waits for this delete and then finds no budget. Its `portal_budget_pending` notices are
    withdrawn from the client's portal (the portal's `budget_withdrawn`, one DELETE; session 24): they pointed at a
    budget the portal answers 404 for."""
    from chalicelib.areas.invoices import service as invoices_service
    from chalicelib.areas.notes import service as notes_service
    from chalicelib.areas.portal import service as portal_service
    from chalicelib.areas.timesheets import service as timesheets_service

    budget = load_budget(ctx, budget_id)
    if lock_row(ctx.db, Budget, budget.id) is None:  # deleted by the request this one waited for: one entry
        raise NotFound("Budget not found")
    invoices = invoices_service.budget_invoice_count(ctx.db, budget.id)
    if invoices:
        raise Conflict(f"The budget has {invoices} invoice{'s' if invoices != 1 else ''} (voided ones count): delete "
                       f"{'them' if invoices != 1 else 'it'} first, or set the budget's status instead")
    history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="deleted", actor_id=ctx.user_id,
                   changes={"name": budget.name, "status": budget.status})
    ctx.db.flush()
    timesheets_service.clear_budget(ctx.db, budget_id=budget.id)
    notes_service.records_deleted(ctx.db, "budget", [budget.id])
    portal_service.budget_withdrawn(ctx.db, budget_id=budget.id)
    ctx.db.delete(budget)
    ctx.db.flush()


# ---------------------------------------------------------------- for other areas (projects, deals)

def project_budget_totals(db, project_id: str) -> dict[str, Decimal]:
    """`{currency: total}` of the project's budgets that are not cancelled, by the budgets' currency: the sum of
    total_amount, or of the line item amounts when a budget has no total_amount (one grouped statement; no scoping:
    the caller checked the project). Money in two currencies is never added together."""
    spent = (select(func.coalesce(func.sum(BudgetLineItem.amount), 0)).where(BudgetLineItem.budget_id == Budget.id)
             .correlate(Budget).scalar_subquery())
    rows = db.execute(select(Budget.currency, func.coalesce(func.sum(func.coalesce(Budget.total_amount, spent)), 0))
                      .where(Budget.resource_type == "project", Budget.resource_id == project_id,
                             Budget.status != CANCELLED)
                      .group_by(Budget.currency)).all()
    return {currency: Decimal(str(total or 0)) for currency, total in rows}


def check_client_move(db, *, resource_type: str, resource_id: str, company_before: str | None,
                      company_after: str | None) -> None:
    """Before a project's or deal's company changes (the projects and deals areas, under the record's row lock, before
    their write): a move from client A (set) to another company, or to none, while any of the record's budgets is
    `approved` is a 409 naming how many, nothing written (session 25). The approval is A's, given in A's portal
    (history's `approved_by` is A's portal user): moved along, the budget would be listed approved in B's portal,
    an approval B never gave. Clearing the company counts as a move (A, then none, then B would be the same move in
    two steps). A company given to a record that had none, or the same one sent back, checks nothing. The way out:
    set the budgets back to `pending_approval` (staff may move a budget out of approved; the new client is then
    asked), or move them to another project or deal of A first. One statement (the count)."""
    if not company_before or company_after == company_before:
        return
    approved = int(db.scalar(select(func.count(Budget.id)).where(
        Budget.resource_type == resource_type, Budget.resource_id == resource_id,
        Budget.status == CLIENT_APPROVED)) or 0)
    if approved:
        budgets = f"{approved} approved budget{'s' if approved != 1 else ''}"
        them = "them" if approved != 1 else "it"
        raise Conflict(f"The {resource_type} has {budgets} (its client's approval, given in the client's portal): it "
                       f"cannot move to another client with {them}. Set {them} back to pending approval, or move "
                       f"{them} to another project or deal of this client, first")


def project_company_changed(ctx, *, project_id: str) -> int:
    """A project was given a client company or moved to another (the projects area, under the project's row lock):
    its budgets pending approval are told to that client (`resource_company_changed`). Answers how many."""
    return resource_company_changed(ctx, resource_type="project", resource_id=project_id)


def deal_company_changed(ctx, *, deal_id: str, company_before: str | None = None,
                         company_after: str | None = None) -> int:
    """A deal was given a client company or moved to another (the deals area, under the deal's row lock): as
    `project_company_changed`, for the deal's budgets (a deal's budgets are in its company's portal). A deal has no
    history of its own, so each of its budgets' history records the move (`company_changed`, `company_id` from and
    to; one INSERT, none without budgets): the portal shows a client a budget's entries since it became theirs
    (portal.service._moved_after, session 27: the new client read the old one's entries)."""
    from chalicelib.core.locks import insert_rows

    budget_ids = ctx.db.scalars(select(Budget.id).where(Budget.resource_type == "deal", Budget.resource_id == deal_id)
                                .order_by(Budget.id)).all()
    insert_rows(ctx.db, HistoryEntry, [
        {"entity_type": ENTITY, "entity_id": budget_id, "action": "company_changed", "actor_id": ctx.user_id,
         "changes": {"company_id": {"from": company_before, "to": company_after}}} for budget_id in budget_ids])
    return resource_company_changed(ctx, resource_type="deal", resource_id=deal_id)


def resource_company_changed(ctx, *, resource_type: str, resource_id: str) -> int:
    """The project or deal now belongs to another client company: its budgets pending approval, now in that
    client's portal (listed, approvable), are told to its portal users (`portal_budget_pending`, as
    `_tell_portal_pending` tells a budget moved there: session 24). One statement finds them (id and name, oldest
    first); the portal's notice takes one budget, so each costs its own few statements (the resource's company, the
    portal users, their notices): bounded by the resource's pending budgets, and none without any. The old company
    is not told again, and the notices told to it are withdrawn first (session 29: they pointed at a budget its
    portal no longer lists). Answers how many budgets were told."""
    from chalicelib.areas.portal import service as portal_service

    pending = ctx.db.execute(select(Budget.id, Budget.name).where(
        Budget.resource_type == resource_type, Budget.resource_id == resource_id, Budget.status == "pending_approval")
        .order_by(Budget.created_at, Budget.id)).all()
    for budget_id, name in pending:
        portal_service.budget_withdrawn(ctx.db, budget_id=budget_id)
        portal_service.budget_pending_approval(ctx, budget_id=budget_id, name=name, resource_type=resource_type,
                                               resource_id=resource_id)
    return len(pending)


def project_holds(db, project_id: str) -> dict[str, int]:
    """What of the project's money and work stops its delete: `{"time_entries": n, "budgets": m}`, the time entries
    (any status) that name it and its budgets (any status; their invoices hang off them). One statement, the
    timesheets area's count beside this area's (docs/decisions/projects.md, "Deleting a project")."""
    from chalicelib.areas.timesheets import service as timesheets_service

    budgets = _budget_count("project", project_id)
    row = db.execute(select(timesheets_service.project_entry_count(project_id).label("time_entries"),
                            budgets.label("budgets"))).one()
    return {"time_entries": int(row.time_entries or 0), "budgets": int(row.budgets or 0)}


def deal_holds(db, deal_id: str) -> dict[str, int]:
    """What stops a deal's delete: `{"budgets": m}`, its budgets (any status; their invoices hang off them). One
    statement (docs/decisions/budgets.md; the deal twin of `project_holds`)."""
    return {"budgets": int(db.scalar(select(_budget_count("deal", deal_id))) or 0)}


def _budget_count(resource_type: str, resource_id: str):
    return (select(func.count(Budget.id)).where(Budget.resource_type == resource_type, Budget.resource_id == resource_id)
            .correlate(None).scalar_subquery())


# --- a project's profitability (served here: budgets read projects and time entries, never the reverse) ----

def _number(value) -> float:
    return round(float(value or 0), 2)


def project_profitability(ctx, *, project_id: str) -> dict:
    """Budget total of the project's budgets, hours from time entries (`time_by_member` at most 500 people, the
    totals over all), team size from its members, invoiced and collected from the invoices (not voided) of its
    budgets. Money by currency (`by_currency`), never added across currencies: the top-level budget_total, invoiced
    and collected are those of `currency` (`_by_currency`). 404 when the project is missing or out of the caller's
    scope."""
    from chalicelib.areas.invoices import service as invoices_service
    from chalicelib.areas.projects import service as projects_service
    from chalicelib.areas.timesheets import service as timesheets_service

    projects_service.load_project(ctx, project_id)
    budgets = project_budget_totals(ctx.db, project_id)
    invoices = invoices_service.invoiced_by_currency(ctx.db, budget_ids_of("project", project_id))
    by_currency = _by_currency(budgets, invoices)
    main = by_currency[0] if budgets else {"currency": None, "budget_total": 0.0, "invoiced": 0.0, "collected": 0.0}
    members, total_hours, billable_hours = timesheets_service.project_hours(ctx.db, project_id)
    time_by_member = [
        {"id": row["user_id"], "name": row.get("name"), "picture": row.get("picture"),
         "total_hours": _number(row.get("total_hours")), "billable_hours": _number(row.get("billable_hours"))}
        for row in members
    ]
    return {
        "budget_total": main["budget_total"],
        "total_hours": _number(total_hours),
        "billable_hours": _number(billable_hours),
        "team_size": projects_service.member_count(ctx.db, project_id),
        "invoiced": main["invoiced"],
        "collected": main["collected"],
        "time_by_member": time_by_member,
        "currency": main["currency"],
        "by_currency": by_currency,
    }


def _by_currency(budgets: dict, invoices: dict) -> list[dict]:
    """One `{currency, budget_total, invoiced, collected}` per currency of the counted budgets (`budgets`:
    {currency: total}) or of the counted invoices (`invoices`: not voided, of any of the project's budgets;
    {currency: (invoiced, collected)} by the invoice's own currency), the project's currency first: the budgets' currencies by largest budget total, ties by code, then
    the currencies only invoices are in, by code (docs/decisions/budgets.md, "Project profitability")."""
    def order(currency):
        return currency not in budgets, -budgets.get(currency, 0), currency

    return [{"currency": currency, "budget_total": _number(budgets.get(currency)),
             "invoiced": _number(invoices.get(currency, (0, 0))[0]),
             "collected": _number(invoices.get(currency, (0, 0))[1])}
            for currency in sorted(budgets.keys() | invoices.keys(), key=order)]


def service_type_uses(item_id: str):
    """A scalar count of the budget lines naming service type `item_id` (no foreign key: a deleted item left them
    naming nothing): the config lists area refuses to delete a service type in use (session 25)."""
    return select(func.count()).select_from(BudgetLineItem).where(BudgetLineItem.service_type_id == item_id) \
        .scalar_subquery()
