"""Budgets: scoping, list, detail, create, update, delete, line items, and totals for other areas.

A budget belongs to a project or a deal (`resource_type`, `resource_id`). Scoping: a budget of a
project is seen by those who see the project (projects' scoping); a budget of a deal by every holder
of budgets:view (deals have no record scoping). Other areas are reached through their `service`,
imported inside the function that needs it: projects (visibility), deals (deal and company checks,
company names), tasks (titles, task checks), timesheets (logged hours and time entries).
Money is Decimal end to end: `amount = quantity * unit_price` computed exactly, stored as Numeric.
"""
from __future__ import annotations

from sqlalchemy import func, or_, select

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, NotFound
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_row, set_positions
from chalicelib.core.models import ConfigList, ConfigListItem, User
from chalicelib.core.permissions import allows
from chalicelib.core.query import in_scope, visible_exists, visible_row
from chalicelib.core.serialize import row_dict, value_out

from .models import Budget, BudgetLineItem

ENTITY = "budget"
LIST_LIMIT = 500
BUDGET_FIELDS = ("id", "name", "resource_type", "resource_id", "po_number", "currency", "status", "total_amount",
                 "company_id", "notes", "owner_id", "created_by", "budget_type", "forecast_date", "created_at",
                 "updated_at")
ITEM_FIELDS = ("id", "budget_id", "description", "quantity", "unit_price", "amount", "service_type_id", "task_id",
               "position", "created_at", "updated_at")


# ---------------------------------------------------------------- scoping

def visibility(principal):
    """WHERE clause of the budgets the principal may see (None: all)."""
    from chalicelib.areas.projects import service as projects_service

    projects = projects_service.visible_project_ids(principal)
    if projects is None:
        return None
    return or_(Budget.resource_type == "deal",
               (Budget.resource_type == "project") & Budget.resource_id.in_(projects))


def _visible(ctx, budget_id: str) -> Budget:
    return visible_row(ctx.db, Budget, budget_id, visibility(ctx.principal), "Budget")


def visible_budget_exists(ctx, budget_id: str) -> bool:
    """Whether the budget exists and the caller may see it (one query); for timesheets' checks."""
    return visible_exists(ctx.db, Budget, budget_id, visibility(ctx.principal))


def line_item_budget_id(db, line_item_id: str) -> str | None:
    """The budget of a line item, or None when no such item (one query)."""
    return db.scalar(select(BudgetLineItem.budget_id).where(BudgetLineItem.id == line_item_id))


# ---------------------------------------------------------------- reading

def _totals():
    count = (select(func.count(BudgetLineItem.id)).where(BudgetLineItem.budget_id == Budget.id)
             .correlate(Budget).scalar_subquery())
    spent = (select(func.coalesce(func.sum(BudgetLineItem.amount), 0)).where(BudgetLineItem.budget_id == Budget.id)
             .correlate(Budget).scalar_subquery())
    return count.label("line_item_count"), spent.label("spent_amount")


def _select():
    count, spent = _totals()
    return select(Budget, User.name.label("owner_name"), count, spent).outerjoin(User, User.id == Budget.owner_id)


def _records(db, rows) -> list[dict]:
    """Budget records with company_name and logged_hours (one query each for the whole list)."""
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.areas.timesheets import service as timesheets_service

    budgets = [row[0] for row in rows]
    names = deals_service.company_names(db, [b.company_id for b in budgets if b.company_id])
    hours = timesheets_service.hours_by_budget(db, [b.id for b in budgets])
    out = []
    for budget, owner_name, count, spent in rows:
        record = row_dict(budget, BUDGET_FIELDS)
        record.update(company_name=names.get(budget.company_id), owner_name=owner_name,
                      line_item_count=int(count or 0), spent_amount=value_out(spent or 0) or 0.0,
                      logged_hours=hours.get(budget.id, 0.0))
        out.append(record)
    return out


def _record(ctx, budget_id: str) -> dict:
    return _records(ctx.db, ctx.db.execute(_select().where(Budget.id == budget_id)).all())[0]


def list_budgets(ctx, *, query) -> dict:
    stmt = in_scope(_select(), visibility(ctx.principal))
    for field in ("resource_type", "resource_id", "company_id", "status"):
        value = getattr(query, field)
        if value:
            stmt = stmt.where(getattr(Budget, field) == value)
    stmt = stmt.order_by(Budget.created_at.desc(), Budget.id).limit(LIST_LIMIT)
    return {"budgets": _records(ctx.db, ctx.db.execute(stmt).all())}


def _item_rows(db, budget_id: str, item_id: str | None = None) -> list:
    stmt = (select(BudgetLineItem, ConfigListItem.label)
            .outerjoin(ConfigListItem, ConfigListItem.id == BudgetLineItem.service_type_id)
            .where(BudgetLineItem.budget_id == budget_id))
    if item_id is not None:
        stmt = stmt.where(BudgetLineItem.id == item_id)
    return db.execute(stmt.order_by(BudgetLineItem.position, BudgetLineItem.created_at, BudgetLineItem.id)
                      .limit(LIST_LIMIT)).all()


def _item_records(db, rows, titles: dict | None = None) -> list[dict]:
    """Line items with service_type_name, task_title, logged_hours (approved entries) and
    invoiced_amount (0 until the invoices area exists). Titles are fetched when not given."""
    from chalicelib.areas.tasks import service as tasks_service
    from chalicelib.areas.timesheets import service as timesheets_service

    if titles is None:
        titles = tasks_service.task_titles(db, [item.task_id for item, _ in rows if item.task_id])
    hours = timesheets_service.approved_hours_by_line_item(db, [item.id for item, _ in rows])
    return [{**row_dict(item, ITEM_FIELDS), "service_type_name": label, "task_title": titles.get(item.task_id),
             "logged_hours": hours.get(item.id, 0.0), "invoiced_amount": 0.0}
            for item, label in rows]


def get_budget(ctx, *, budget_id: str) -> dict:
    """The budget (read and scope-checked in one statement), its line items and its time entries;
    a fixed number of statements whatever the number of items and entries."""
    from chalicelib.areas.tasks import service as tasks_service
    from chalicelib.areas.timesheets import service as timesheets_service

    rows = ctx.db.execute(in_scope(_select().where(Budget.id == budget_id), visibility(ctx.principal))).all()
    if not rows:
        raise NotFound("Budget not found")
    items = _item_rows(ctx.db, budget_id)
    entries = timesheets_service.budget_entries(ctx.db, budget_id, limit=LIST_LIMIT)
    titles = tasks_service.task_titles(ctx.db, [entry["task_id"] for entry in entries if entry["task_id"]]
                                       + [item.task_id for item, _ in items if item.task_id])
    for entry in entries:
        entry["task_title"] = titles.get(entry["task_id"])
    return {"budget": _records(ctx.db, rows)[0], "line_items": _item_records(ctx.db, items, titles),
            "time_entries": entries}


# ---------------------------------------------------------------- checks

def _check_references(ctx, values: dict, budget: Budget | None = None) -> None:
    """resource (a project or deal the caller can see), company_id (a company), owner_id (an active user):
    400 with details otherwise. On update, unchanged values are not re-checked."""
    def changed(field):
        return field in values and (budget is None or values[field] != getattr(budget, field))

    details = []
    if changed("resource_type") or changed("resource_id"):
        resource_type = values.get("resource_type", budget.resource_type if budget else None)
        resource_id = values.get("resource_id", budget.resource_id if budget else None)
        if not _resource_visible(ctx, resource_type, resource_id):
            details.append({"field": "resource_id", "message": f"must be a {resource_type} you can see"})
    if changed("company_id") and values["company_id"]:
        from chalicelib.areas.deals import service as deals_service

        if not deals_service.company_names(ctx.db, [values["company_id"]]):
            details.append({"field": "company_id", "message": "must be an existing company"})
    if changed("owner_id") and values["owner_id"]:
        if ctx.db.scalar(select(User.id).where(User.id == values["owner_id"], User.is_active.is_(True))) is None:
            details.append({"field": "owner_id", "message": "must be an active user"})
    if details:
        raise BadRequest("Invalid budget references", details=details)


def _resource_visible(ctx, resource_type: str, resource_id: str) -> bool:
    if resource_type == "project":
        from chalicelib.areas.projects import service as projects_service

        try:
            projects_service.visible_project(ctx, resource_id)
        except NotFound:
            return False
        return True
    from chalicelib.areas.deals import service as deals_service

    return allows(ctx.principal.permissions, "deals", "view") and deals_service.deal_brief(ctx.db, resource_id) is not None


def _snapshot(budget: Budget) -> dict:
    return {field: value_out(getattr(budget, field)) for field in BUDGET_FIELDS if field not in ("updated_at",)}


# ---------------------------------------------------------------- writing

def create_budget(ctx, *, data) -> dict:
    values = data.model_dump()
    _check_references(ctx, values)
    budget = Budget(**values, owner_id=ctx.user_id, created_by=ctx.user_id)
    ctx.db.add(budget)
    ctx.db.flush()
    history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="created", actor_id=ctx.user_id,
                   changes={"name": budget.name, "status": budget.status})
    ctx.db.flush()
    return {"budget": _record(ctx, budget.id)}


def update_budget(ctx, *, budget_id: str, data) -> dict:
    changes = data.changes()
    if not changes:
        raise BadRequest("At least one field is required")
    budget = _visible(ctx, budget_id)
    lock_row(ctx.db, Budget, budget.id)  # a status transition is checked and recorded on the current row
    _check_references(ctx, changes, budget)
    before = _snapshot(budget)
    for key, value in changes.items():
        setattr(budget, key, value)
    budget.updated_at = utcnow()
    ctx.db.flush()
    diff = history.diff(before, {k: v for k, v in _snapshot(budget).items() if k in changes})
    status_change = diff.pop("status", None)
    if status_change is not None:
        history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="status_changed",
                       actor_id=ctx.user_id, changes={"status": status_change})
    if diff:
        history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="updated", actor_id=ctx.user_id,
                       changes=diff)
    ctx.db.flush()
    return {"budget": _record(ctx, budget.id)}


def delete_budget(ctx, *, budget_id: str) -> dict:
    """Logs `deleted`, clears the budget from time entries (timesheets), then removes it and its items."""
    from chalicelib.areas.timesheets import service as timesheets_service

    budget = _visible(ctx, budget_id)
    history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="deleted", actor_id=ctx.user_id,
                   changes={"name": budget.name, "status": budget.status})
    ctx.db.flush()
    timesheets_service.clear_budget(ctx.db, budget_id=budget.id)
    ctx.db.delete(budget)
    ctx.db.flush()
    return {"ok": True}


# ---------------------------------------------------------------- line items

def _check_item_references(ctx, values: dict, item: BudgetLineItem | None = None) -> None:
    details = []
    service_type_id, task_id = values.get("service_type_id"), values.get("task_id")
    if service_type_id and (item is None or service_type_id != item.service_type_id):
        found = ctx.db.scalar(select(ConfigListItem.id).join(ConfigList, ConfigList.id == ConfigListItem.list_id)
                              .where(ConfigListItem.id == service_type_id, ConfigList.key == "service_type"))
        if found is None:
            details.append({"field": "service_type_id", "message": "must be an item of the service_type list"})
    if task_id and (item is None or task_id != item.task_id):
        from chalicelib.areas.tasks import service as tasks_service

        if not tasks_service.visible_task_exists(ctx, task_id):
            details.append({"field": "task_id", "message": "must be a task you can see"})
    if details:
        raise BadRequest("Invalid line item references", details=details)


def _item(ctx, budget_id: str, item_id: str) -> BudgetLineItem:
    item = ctx.db.scalar(select(BudgetLineItem).where(BudgetLineItem.id == item_id,
                                                     BudgetLineItem.budget_id == budget_id))
    if item is None:
        raise NotFound("Line item not found")
    return item


def _item_out(ctx, item: BudgetLineItem) -> dict:
    return _item_records(ctx.db, _item_rows(ctx.db, item.budget_id, item.id))[0]


def _touch(budget: Budget) -> None:
    budget.updated_at = utcnow()


def add_line_item(ctx, *, budget_id: str, data) -> dict:
    budget = _visible(ctx, budget_id)
    values = data.model_dump()
    _check_item_references(ctx, values)
    item = BudgetLineItem(budget_id=budget.id, **values, amount=values["quantity"] * values["unit_price"])
    ctx.db.add(item)
    _touch(budget)
    ctx.db.flush()
    history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="line_item_added", actor_id=ctx.user_id,
                   changes={"item_id": item.id, "description": item.description, "amount": value_out(item.amount)})
    ctx.db.flush()
    return {"item": _item_out(ctx, item)}


def update_line_item(ctx, *, budget_id: str, item_id: str, data) -> dict:
    budget = _visible(ctx, budget_id)
    item = _item(ctx, budget.id, item_id)
    changes = data.changes()
    _check_item_references(ctx, changes, item)
    before = {field: value_out(getattr(item, field)) for field in ITEM_FIELDS}
    for key, value in changes.items():
        setattr(item, key, value)
    item.amount = item.quantity * item.unit_price
    _touch(budget)
    ctx.db.flush()
    after = {field: value_out(getattr(item, field)) for field in ITEM_FIELDS if field not in ("updated_at",)}
    history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="line_item_updated",
                   actor_id=ctx.user_id, changes={"item_id": item.id, **history.diff(before, after)})
    ctx.db.flush()
    return {"item": _item_out(ctx, item)}


def remove_line_item(ctx, *, budget_id: str, item_id: str) -> dict:
    from chalicelib.areas.timesheets import service as timesheets_service

    budget = _visible(ctx, budget_id)
    item = _item(ctx, budget.id, item_id)
    history.record(ctx.db, entity_type=ENTITY, entity_id=budget.id, action="line_item_removed",
                   actor_id=ctx.user_id, changes={"item_id": item.id, "description": item.description,
                                                  "amount": value_out(item.amount)})
    timesheets_service.clear_line_item(ctx.db, line_item_id=item.id)
    ctx.db.delete(item)
    _touch(budget)
    ctx.db.flush()
    return {"ok": True}


def reorder_line_items(ctx, *, budget_id: str, item_ids: list[str]) -> dict:
    """Each named item's position = its index; every id must be an item of this budget, no repeats (400
    before any write, so the reorder is all or nothing)."""
    budget = _visible(ctx, budget_id)
    lock_row(ctx.db, Budget, budget.id)  # one reorder at a time: the result is exactly one request's order
    if len(set(item_ids)) != len(item_ids):
        raise BadRequest("item_ids contains duplicates", details=[{"field": "item_ids", "message": "duplicate id"}])
    items = set(ctx.db.scalars(
        select(BudgetLineItem.id).where(BudgetLineItem.id.in_(item_ids), BudgetLineItem.budget_id == budget.id)))
    foreign = [item_id for item_id in item_ids if item_id not in items]
    if foreign:
        raise BadRequest("item_ids must be line items of this budget",
                         details=[{"field": "item_ids", "message": f"not an item of this budget: {foreign[0]}"}])
    set_positions(ctx.db, BudgetLineItem, BudgetLineItem.position, item_ids)  # one statement
    _touch(budget)
    ctx.db.flush()
    return {"ok": True}


# ---------------------------------------------------------------- for other areas (projects)

def project_budget_total(db, project_id: str) -> float:
    """Sum over the project's budgets that are not cancelled of total_amount, or of the line item
    amounts when a budget has no total_amount (one query; no scoping: the caller checked the project)."""
    spent = (select(func.coalesce(func.sum(BudgetLineItem.amount), 0)).where(BudgetLineItem.budget_id == Budget.id)
             .correlate(Budget).scalar_subquery())
    total = db.scalar(select(func.coalesce(func.sum(func.coalesce(Budget.total_amount, spent)), 0))
                      .where(Budget.resource_type == "project", Budget.resource_id == project_id,
                             Budget.status != "cancelled"))
    return float(total or 0)


# --- a project's profitability (served here: budgets read projects and time entries, never the reverse) ----

def _number(value) -> float:
    return round(float(value or 0), 2)


def project_profitability(ctx, *, project_id: str) -> dict:
    """Budget total of the project's budgets, hours from time entries, team size from its members; invoices
    do not exist yet (0). 404 when the project is missing or out of the caller's scope."""
    from chalicelib.areas.projects import service as projects_service
    from chalicelib.areas.timesheets import service as timesheets_service

    projects_service.visible_project(ctx, project_id)
    budget_total = project_budget_total(ctx.db, project_id)
    time_by_member = [
        {"id": row["user_id"], "name": row.get("name"), "picture": row.get("picture"),
         "total_hours": _number(row.get("total_hours")), "billable_hours": _number(row.get("billable_hours"))}
        for row in timesheets_service.project_time_by_member(ctx.db, project_id)
    ]
    return {
        "budget_total": _number(budget_total),
        "total_hours": _number(sum(r["total_hours"] for r in time_by_member)),
        "billable_hours": _number(sum(r["billable_hours"] for r in time_by_member)),
        "team_size": projects_service.member_count(ctx.db, project_id),
        "invoiced": 0.0,
        "collected": 0.0,
        "time_by_member": time_by_member,
    }
