"""The budgets area's leaf module: the scope clause `visible`, the load-or-404 helper `load_budget` (a line item
is loaded under its budget's lock: service_line_items), the budget and line item read queries and record
builders. service.py and service_*.py import it, never the reverse."""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import func, or_, select

from chalicelib.core.lookup import Names, ids_read, names_select
from chalicelib.core.models import ConfigListItem
from chalicelib.core.query import LIST_LIMIT, Read, record_sets, visible_row
from chalicelib.core.readers import readers, seen_by
from chalicelib.core.serialize import row_dict, value_out

from .models import Budget, BudgetLineItem

ENTITY = "budget"  # the history entries' entity_type of a budget and its line items
BUDGET_FIELDS = ("id", "name", "resource_type", "resource_id", "po_number", "currency", "status", "total_amount",
                 "company_id", "notes", "owner_id", "created_by", "budget_type", "forecast_date", "created_at",
                 "updated_at")
ITEM_FIELDS = ("id", "budget_id", "description", "quantity", "unit_price", "amount", "service_type_id", "task_id",
               "position", "created_at", "updated_at")
# A budget holds at most this many line items (enforced on write), so its detail answers them all.
LINE_ITEM_LIMIT = LIST_LIMIT


def visible(principal):
    """WHERE clause of the budgets the principal may see (None: all): a budget of a project is seen by those
    who see the project (projects' scoping); a budget of a deal by every holder of budgets:view."""
    from chalicelib.areas.projects import service as projects_service

    projects = projects_service.visible_project_ids(principal)
    if projects is None:
        return None
    return or_(Budget.resource_type == "deal",
               (Budget.resource_type == "project") & Budget.resource_id.in_(projects))


def load_budget(ctx, budget_id: str) -> Budget:
    """The budget if it exists and the caller may see it; 404 otherwise (one query)."""
    return visible_row(ctx.db, Budget, budget_id, visible(ctx.principal), "Budget")


def budget_seen_by(db, budget_id: str, principals) -> set[str]:
    """Which of these principals see the budget: its scope clause as each of them, in one statement (a
    UNION ALL; none for no principals). The notes area asks it of the users a note mentions."""
    return seen_by(db, Budget, budget_id, principals, visible)


def budget_readers(db, budget_id: str, user_ids) -> set[str]:
    """Which of these users may read the budget: active, `budgets:view`, and the budget inside their scope
    (`visible`), two statements at most whatever their number (core.readers.readers). A budget's notice names it
    only to them."""
    return readers(db, Budget, budget_id, user_ids, tool="budgets", scope_of=visible)


def line_item_totals(db, budget_id: str, *, other_than: str | None = None) -> tuple[int, Decimal]:
    """(how many line items, the sum of their amounts) of the budget, leaving out the item `other_than` (one
    statement)."""
    stmt = select(func.count(BudgetLineItem.id), func.coalesce(func.sum(BudgetLineItem.amount), 0)).where(
        BudgetLineItem.budget_id == budget_id)
    if other_than is not None:
        stmt = stmt.where(BudgetLineItem.id != other_than)
    count, amount = db.execute(stmt).one()
    return int(count or 0), Decimal(str(amount or 0))


def _totals_statement(budget_in):
    return (select(BudgetLineItem.budget_id.label("budget_id"), func.count(BudgetLineItem.id).label("n"),
                   func.coalesce(func.sum(BudgetLineItem.amount), 0).label("spent"))
            .where(budget_in(BudgetLineItem.budget_id)).group_by(BudgetLineItem.budget_id))


def budget_totals_select(db, budget_ids) -> Read | None:
    """The grouped read of each budget's line item count and spent amount (rows budget_id, n, spent; built once
    per process), None without ids."""
    return ids_read(db, _totals_statement, "total_budget_ids", budget_ids)


def _totals(rows) -> dict[str, tuple[int, object]]:
    pairs = ((row["budget_id"], row["n"], row["spent"]) if isinstance(row, dict) else tuple(row) for row in rows)
    return {bid: (int(count or 0), spent) for bid, count, spent in pairs}


def budget_select():
    """The base statement of every budget read: the budgets' own columns, no joins and no correlated
    subqueries (the owner's name and the totals are added by `budget_records`)."""
    return select(Budget)


def budget_lookups(db, records) -> dict:
    """The reads that complete budget records (the owner's name, line item counts and spent amounts, company
    names, logged hours), for one record_sets round trip."""
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.areas.timesheets import service as timesheets_service

    return {"names": names_select(db, user_ids=[r["owner_id"] for r in records]),
            "totals": budget_totals_select(db, [r["id"] for r in records]),
            "companies": deals_service.company_names_select(db, [r["company_id"] for r in records]),
            "hours": timesheets_service.hours_by_budget_select(db, [r["id"] for r in records])}


def with_budget_lookups(records: list[dict], sets: dict) -> list[dict]:
    """The records with company_name, owner_name, line_item_count, spent_amount and logged_hours from
    `budget_lookups`'s answers (`sets`; taken out of it)."""
    from chalicelib.areas.timesheets import service as timesheets_service

    owners, totals = Names.of(sets.pop("names")), _totals(sets.pop("totals"))
    companies = {row["id"]: row["name"] for row in sets.pop("companies")}
    hours = timesheets_service.budget_hours(sets.pop("hours"))
    for record in records:
        count, spent = totals.get(record["id"], (0, 0))
        record.update(company_name=companies.get(record["company_id"]), owner_name=owners.user(record["owner_id"])["name"],
                      line_item_count=count, spent_amount=value_out(spent or 0) or 0.0,
                      logged_hours=hours.get(record["id"], 0.0))
    return records


def budget_records(db, rows) -> list[dict]:
    """Budget records with owner_name, line_item_count, spent_amount, company_name and logged_hours: one
    statement for the whole list (core.query.record_sets). `rows`: records read by core.query.record_rows,
    budgets, or rows whose first item is one."""
    records = [row if isinstance(row, dict) else row_dict(row if isinstance(row, Budget) else row[0], BUDGET_FIELDS)
               for row in rows]
    if not records:
        return []
    return with_budget_lookups(records, record_sets(db, **budget_lookups(db, records)))


def budget_record(ctx, budget_id: str) -> dict:
    return budget_records(ctx.db, ctx.db.execute(budget_select().where(Budget.id == budget_id)).all())[0]


def item_select(budget_id: str):
    """The budget's line items as records (ITEM_FIELDS and service_type_name), in their order, for a record_sets
    statement (the detail)."""
    return (select(*(getattr(BudgetLineItem, name) for name in ITEM_FIELDS),
                   ConfigListItem.label.label("service_type_name"))
            .outerjoin(ConfigListItem, ConfigListItem.id == BudgetLineItem.service_type_id)
            .where(BudgetLineItem.budget_id == budget_id)
            .order_by(BudgetLineItem.position, BudgetLineItem.created_at, BudgetLineItem.id).limit(LINE_ITEM_LIMIT))


def item_rows(db, budget_id: str, item_id: str | None = None) -> list:
    stmt = (select(BudgetLineItem, ConfigListItem.label)
            .outerjoin(ConfigListItem, ConfigListItem.id == BudgetLineItem.service_type_id)
            .where(BudgetLineItem.budget_id == budget_id))
    if item_id is not None:
        stmt = stmt.where(BudgetLineItem.id == item_id)
    return db.execute(stmt.order_by(BudgetLineItem.position, BudgetLineItem.created_at, BudgetLineItem.id)
                      .limit(LINE_ITEM_LIMIT)).all()


def item_records(ctx, rows) -> list[dict]:
    """Line items with service_type_name, task_title, logged_hours (approved entries) and
    invoiced_amount (what non-voided invoices billed from the line: invoices area); the titles only of the tasks
    the caller may read (tasks' `visible_task_titles`: another task's title is null, as the detail answers it)."""
    from chalicelib.areas.invoices import service as invoices_service
    from chalicelib.areas.tasks import service as tasks_service
    from chalicelib.areas.timesheets import service as timesheets_service

    db = ctx.db
    titles = tasks_service.visible_task_titles(ctx, [item.task_id for item, _ in rows if item.task_id])
    hours = timesheets_service.approved_hours_by_line_item(db, [item.id for item, _ in rows])
    invoiced = invoices_service.invoiced_by_budget_line_item(db, [item.id for item, _ in rows])
    return with_item_lookups([{**row_dict(item, ITEM_FIELDS), "service_type_name": label} for item, label in rows],
                             titles, hours, invoiced)


def with_item_lookups(records: list[dict], titles: dict, hours: dict, invoiced: dict) -> list[dict]:
    """Line item records completed with task_title, logged_hours and invoiced_amount (`{id: value}` maps)."""
    for record in records:
        record.update(task_title=titles.get(record["task_id"]), logged_hours=hours.get(record["id"], 0.0),
                      invoiced_amount=invoiced.get(record["id"], 0.0))
    return records
