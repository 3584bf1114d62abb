"""Time entries: list, detail, create, update, delete, and the submit/approve/reject flow.

Scoping (list and detail): employees and leads see their own entries, managers their team's
(`core.scoping.team_user_ids`), heads and executives all. An entry outside the caller's scope
answers 404 (the scope clause and the read query are in queries.py). Other areas call
`project_hours` (projects' profitability).
"""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import case, func, or_, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from chalicelib.core import scoping
from chalicelib.core.errors import BadRequest, Conflict, Forbidden, NotFound, bad_field
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_key, lock_row
from chalicelib.core.models import User
from chalicelib.core.lookup import ids_read
from chalicelib.core.query import Page, Read, record_page

from .models import TimeEntry
from .queries import ENTRY_FLAGS, entry_select, entry_row, list_order, load_entry, visible
from .schemas import WRITABLE_STATUSES

EDITABLE = ("draft", "rejected")


# ---- functions other areas call -------------------------------------------------------------

def project_hours(db: Session, project_id: str) -> tuple[list[dict], float, float]:
    """(hours per user on a project, most hours first, then name and id, at most LIST_LIMIT (decisions.md section
    4); the project's total hours; its billable hours), rejected entries left out: one aggregate query, the
    totals over every user (window sums of the groups), not only the listed ones."""
    from chalicelib.core.query import LIST_LIMIT

    # whole hundredths of an hour (hours is Numeric(5, 2)), summed and ordered exactly on every backend: SQLite
    # keeps a Numeric as a REAL, whose sums are not exact (0.10 + 0.20 above 0.30), integral REALs' sums are
    hundredths = func.round(TimeEntry.hours * 100)
    total = func.coalesce(func.sum(hundredths), 0)
    billable = func.coalesce(func.sum(case((TimeEntry.billable.is_(True), hundredths), else_=0)), 0)
    stmt = (
        select(User.id, User.name, User.picture, total.label("total"), billable.label("billable"),
               func.sum(total).over().label("all_total"), func.sum(billable).over().label("all_billable"))
        .join(TimeEntry, TimeEntry.user_id == User.id)
        .where(TimeEntry.project_id == project_id, TimeEntry.status != "rejected")
        .group_by(User.id, User.name, User.picture)
        .order_by(total.desc(), User.name, User.id)
        .limit(LIST_LIMIT)
    )
    rows = db.execute(stmt).all()
    members = [{"user_id": row.id, "name": row.name, "picture": row.picture,
                "total_hours": _from_hundredths(row.total), "billable_hours": _from_hundredths(row.billable)}
               for row in rows]
    if not rows:
        return members, 0.0, 0.0
    return members, _from_hundredths(rows[0].all_total), _from_hundredths(rows[0].all_billable)


def _from_hundredths(value) -> float:
    """Hours from a sum of whole hundredths (a Decimal on Postgres, an integral REAL on SQLite), as a JSON number."""
    return float(Decimal(int(value or 0)) / 100)


def _hours_statement(budget_in):
    return (select(TimeEntry.budget_id.label("budget_id"), func.sum(TimeEntry.hours).label("hours"))
            .where(budget_in(TimeEntry.budget_id), TimeEntry.status != "rejected").group_by(TimeEntry.budget_id))


def hours_by_budget_select(db, budget_ids) -> Read | None:
    """The read of the hours logged against each budget, rejected entries left out (rows budget_id, hours; built
    once per process), None without ids: for a read that sends it with others in one round trip
    (core.query.record_sets); `budget_hours` reads its rows."""
    return ids_read(db, _hours_statement, "hours_budget_ids", budget_ids)


def budget_hours(rows) -> dict[str, float]:
    """`{budget_id: hours}` from the rows of `hours_by_budget_select` (tuples or records)."""
    pairs = ((row["budget_id"], row["hours"]) if isinstance(row, dict) else tuple(row) for row in rows)
    return {bid: round(float(total or 0), 2) for bid, total in pairs}


def approved_hours_by_line_item(db: Session, line_item_ids: list[str]) -> dict[str, float]:
    """`{line_item_id: hours}` of approved entries only (one query)."""
    ids = sorted({iid for iid in line_item_ids or () if iid})
    if not ids:
        return {}
    return line_item_hours(db.execute(approved_hours_select(ids)).mappings())


def approved_hours_select(line_item_ids):
    """The read of `approved_hours_by_line_item` for these line items (ids, or a SELECT of ids): records
    line_item_id, hours, for a record_sets statement; `line_item_hours` reads its records."""
    return (select(TimeEntry.line_item_id, func.sum(TimeEntry.hours).label("hours"))
            .where(TimeEntry.line_item_id.in_(line_item_ids), TimeEntry.status == "approved")
            .group_by(TimeEntry.line_item_id))


def line_item_hours(records) -> dict[str, float]:
    return {r["line_item_id"]: round(float(r["hours"] or 0), 2) for r in records}


def budget_entry_reads(budget_id: str) -> dict:
    """The budget detail's entry reads, for a record_sets statement: `entries` (the newest LIST_LIMIT with
    user_name, newest date first) and `entries_total` (records with `n`: how many there are, all counted: the
    detail's `time_entries_total` has no `total_exact` beside it)."""
    from chalicelib.core.query import LIST_LIMIT

    return {"entries": (list_order(entry_select().where(TimeEntry.budget_id == budget_id)).limit(LIST_LIMIT),
                        ENTRY_FLAGS),
            "entries_total": select(func.count().label("n")).select_from(TimeEntry)
            .where(TimeEntry.budget_id == budget_id)}


def approved_billable_entries(db: Session, budget_id: str, *, exclude) -> list:
    """The approved, billable entries of a budget that name a line item, minus the ids of the SELECT
    `exclude` (those already invoiced): rows (id, line_item_id, hours), oldest first (one query)."""
    return db.execute(select(TimeEntry.id, TimeEntry.line_item_id, TimeEntry.hours)
                      .where(TimeEntry.budget_id == budget_id, TimeEntry.status == "approved",
                             TimeEntry.billable.is_(True), TimeEntry.line_item_id.is_not(None),
                             TimeEntry.id.not_in(exclude))
                      .order_by(TimeEntry.date, TimeEntry.created_at, TimeEntry.id)).all()


def project_entry_count(project_id: str):
    """A scalar subquery: how many time entries (any status) name the project. Budgets' `project_holds` sends it
    in its own statement: a project that work was logged on is not deleted (docs/decisions/projects.md)."""
    return (select(func.count(TimeEntry.id)).where(TimeEntry.project_id == project_id)
            .correlate(None).scalar_subquery())


def clear_budget(db: Session, *, budget_id: str) -> None:
    """A budget is being deleted: its entries keep their hours and lose budget_id and line_item_id."""
    db.execute(update(TimeEntry).where(TimeEntry.budget_id == budget_id)
               .values(budget_id=None, line_item_id=None).execution_options(synchronize_session=False))


def budget_to_project(db: Session, *, budget_id: str, project_id: str) -> int:
    """A budget is moving to project `project_id` (budgets' update_budget, its row locked FOR UPDATE; session 24): an
    entry on a project's budget is on that project. Answers how many entries naming the budget are on another project
    (the caller refuses the move, nothing written here); when none, the entries naming it without a project take
    `project_id` (one UPDATE, only when there are some). The first statement locks the entries naming the budget that
    are not on `project_id` (FOR NO KEY UPDATE, the lock the UPDATE takes anyway; an invoice's key on an entry, FOR
    KEY SHARE, does not wait for it) and counts them: an entry write in progress holds its entry's row (`_locked`),
    so it is waited for and counted as it commits (an update that changes only the project of an entry naming the
    budget reads the budget without a lock). An entry written onto the budget anew share-locks the budget's row
    (`visible_budget_resource`), so the caller's lock on the budget already waited for it, and one that comes after
    waits for the move and reads the new project. No deadlock with those: such a write waits for the budget only
    while its entry does not name it yet, and then this statement does not wait for its row."""
    off = (select(TimeEntry.project_id).where(TimeEntry.budget_id == budget_id,
                                              or_(TimeEntry.project_id.is_(None), TimeEntry.project_id != project_id))
           .with_for_update(key_share=True).cte("off"))
    row = db.execute(select(func.count(off.c.project_id).label("elsewhere"),
                            func.count().label("off")).select_from(off)).one()
    elsewhere, projectless = int(row.elsewhere), int(row.off) - int(row.elsewhere)
    if not elsewhere and projectless:
        db.execute(update(TimeEntry).where(TimeEntry.budget_id == budget_id, TimeEntry.project_id.is_(None))
                   .values(project_id=project_id).execution_options(synchronize_session=False))
    return elsewhere


def clear_line_item(db: Session, *, line_item_id: str) -> None:
    """A budget line item is being removed: its entries keep the budget and lose line_item_id."""
    db.execute(update(TimeEntry).where(TimeEntry.line_item_id == line_item_id)
               .values(line_item_id=None).execution_options(synchronize_session=False))


# ---- checks -------------------------------------------------------------------------------------

def _locked(ctx, entry_id: str) -> TimeEntry:
    """The visible entry, locked for the rest of the transaction (core.locks.lock_row): a status
    check and its write cannot interleave with another request's."""
    entry = lock_row(ctx.db, TimeEntry, entry_id, where=visible(ctx.principal), missing="Time entry")
    return entry



def _check_owner(ctx, user_id: str) -> None:
    """Who may log time for `user_id`: the user; a manager for their team; head and executive for anyone."""
    if user_id == ctx.user_id:
        return
    principal = ctx.principal
    if scoping.sees_all(principal):
        if ctx.db.scalar(select(User.id).where(User.id == user_id, User.is_active.is_(True))) is None:
            raise bad_field("user_id", "does not match an active user")
        return
    if scoping.is_manager(principal):
        team = scoping.team_user_ids(principal).subquery()
        in_team = ctx.db.scalar(select(User.id).where(User.id == user_id, User.is_active.is_(True),
                                                       User.id.in_(select(team.c.id))))
        if in_team is not None:
            return
        raise Forbidden("Managers may log time only for their team")
    raise Forbidden("Only managers and above may log time for someone else")


def _check_references(ctx, values: dict, entry: TimeEntry | None = None) -> None:
    """`task_id` and `project_id` must name a task / project the caller can see (400 otherwise, the same
    answer for missing and out of scope). On update, a value equal to the stored one is not re-checked.
    `budget_id` must name a budget the caller can see, `line_item_id` a line item of the entry's budget
    (the one sent, else the stored one); both through the budgets area's service. An entry on a project's budget is
    on that project (`_on_budget_project`, session 24; checked when the budget or the project changes): the budget's
    project is answered by the statement that checks the budget (`visible_budget_resource`), or read when only the
    project changes and the entry names a budget already (`budget_resource`, one more statement then).

    A budget or line item the entry names anew is share-locked there (FOR KEY SHARE, held until commit), as
    projects' `link_project` locks a project: `delete_budget` and `delete_line_item` lock their row FOR UPDATE
    before they clear the entries naming it, so a delete in progress is waited for and then refuses the reference,
    and a delete that comes after waits for this write and then clears it (session 22: an entry written while its
    budget was deleted named the deleted budget). No deadlock: an update holds the entry's row (`_locked`) and
    then waits for the budget or item; the delete holds the budget or item and then waits only for entries that
    name it already, and this entry does not name it yet. A line item the entry already names (kept while the
    budget changes) is read without the lock: its delete may be waiting for this entry's row.

    A budget or line item named anew that is a cancelled budget's is a 409, after the 400s (session 31): time is not
    logged on a budget called off. The status comes with the budget's locked read, so a cancel in progress is waited
    for; for an item named anew on the budget the entry names already, with the item's read, the budget not locked
    (`line_item_budget`). An entry already on a cancelled budget keeps every other write: its other fields, the
    budget and item sent back as stored, moved off it (another budget, or no line item), deleted."""
    details = []  # "can see": the record's tool at view and its row scope (session 29: the row scope alone was asked)
    task_id, project_id = values.get("task_id"), values.get("project_id")
    if task_id and (entry is None or task_id != entry.task_id):
        from chalicelib.areas.tasks import service as tasks_service  # another area: imported lazily

        if not tasks_service.visible_task_exists(ctx, task_id):  # tasks:view and the scope (session 29)
            details.append({"field": "task_id", "message": "must be a task you can see"})
    if project_id and (entry is None or project_id != entry.project_id):
        from chalicelib.areas.projects import service as projects_service  # another area: imported lazily

        try:
            # projects:view and the row scope (session 29); waits for a delete of the project in progress
            projects_service.link_project(ctx, project_id)
        except NotFound:
            details.append({"field": "project_id", "message": "must be a project you can see"})
    budget_id = values.get("budget_id", entry.budget_id if entry is not None else None)
    line_item_id = values.get("line_item_id", entry.line_item_id if entry is not None else None)
    budget_changed = "budget_id" in values and (entry is None or budget_id != entry.budget_id)
    project_changed = "project_id" in values and (entry is None or project_id != entry.project_id)
    resource = None  # what the entry's budget belongs to, read when the budget or the project changes
    cancelled = False  # the budget or line item the entry names anew is a cancelled budget's (session 31)
    if budget_id and budget_changed:
        from chalicelib.areas.budgets import service as budgets_service  # another area: imported lazily

        resource = budgets_service.visible_budget_resource(ctx, budget_id)  # budgets:view and the scope (session 29)
        if resource is None:
            details.append({"field": "budget_id", "message": "must be a budget you can see"})
        elif resource[2] == budgets_service.CANCELLED:  # called off: no time logged on it (session 31)
            cancelled = True
    elif budget_id and project_changed:
        from chalicelib.areas.budgets import service as budgets_service  # another area: imported lazily

        resource = budgets_service.budget_resource(ctx.db, budget_id)  # named already: read, not locked
    if resource is not None and resource[0] == "project" and not any(d["field"] == "project_id" for d in details):
        _on_budget_project(values, entry, resource[1], details)
    if line_item_id and (budget_changed or "line_item_id" in values and (entry is None
                                                                            or line_item_id != entry.line_item_id)):
        from chalicelib.areas.budgets import service as budgets_service  # another area: imported lazily

        if entry is not None and line_item_id == entry.line_item_id:  # named already: checked, not locked
            item_budget_id = entry.budget_id
        else:
            item = budgets_service.line_item_budget(ctx.db, line_item_id) if budget_id else None
            item_budget_id, item_budget_status = item if item is not None else (None, None)
            if item_budget_id == budget_id and item_budget_status == budgets_service.CANCELLED:
                cancelled = True  # an item named anew on the budget the entry names already: its status, read
        if not budget_id or item_budget_id != budget_id:
            details.append({"field": "line_item_id", "message": "must be a line item of the entry's budget"})
    if details:
        raise BadRequest("Invalid time entry references", details=details)
    if cancelled:
        raise Conflict("The budget is cancelled: no time is logged on it or its line items (set its status back "
                       "first, or log the time on another budget)")


def _on_budget_project(values: dict, entry: TimeEntry | None, budget_project_id: str, details: list) -> None:
    """An entry on a project's budget is on that project (session 24): its project (the one sent, else the stored one)
    must be the budget's, else 400 naming `budget_id` (it counted in one project's profitability and was billed on
    another's invoice); an entry that names no project takes the budget's (`values` gets it: a create writes it, an
    update changes it). A deal's budget leaves the project free (not called)."""
    project_id = values.get("project_id", entry.project_id if entry is not None else None)
    if project_id is None:
        values["project_id"] = budget_project_id
    elif project_id != budget_project_id:
        details.append({"field": "budget_id",
                        "message": f"must be a budget of the entry's project: this budget is project "
                                   f"{budget_project_id}'s, the entry names project {project_id}"})


DAY_HOURS = 24


def _check_day(ctx, user_id: str, day, hours, entry_id: str | None = None) -> None:
    """A person's day holds at most 24 hours over all their entries of that date (rejected ones left out), the
    entry being written counted once (400 naming hours). Writes to one person's day take turns (an advisory
    lock), so two entries at once cannot both pass."""
    lock_key(ctx.db, "time-entries-day", user_id, day.isoformat())
    others = select(func.coalesce(func.sum(TimeEntry.hours), 0)).where(
        TimeEntry.user_id == user_id, TimeEntry.date == day, TimeEntry.status != "rejected")
    if entry_id is not None:
        others = others.where(TimeEntry.id != entry_id)
    logged = ctx.db.scalar(others)
    if logged + hours > DAY_HOURS:
        raise bad_field("hours", f"a day holds at most {DAY_HOURS} hours: {float(logged):g} are logged on "
                                 f"{day.isoformat()} already")


def _counts_again(entry: TimeEntry, status: str) -> bool:
    """A rejected entry moved to a counted status (a PUT of `status`, the submit action) counts toward its day
    again: that write meets the day check as a create does (approve takes only submitted entries)."""
    return entry.status == "rejected" and status != "rejected"


# ---- reading ------------------------------------------------------------------------------------

def list_entries(ctx, *, query) -> Page:
    """One page of the entries in the caller's scope (filters), newest date first, with the total."""
    conditions = []
    clause = visible(ctx.principal)
    if clause is not None:
        conditions.append(clause)
    for field in ("user_id", "project_id", "task_id", "budget_id", "status"):
        value = getattr(query, field)
        if value:
            conditions.append(getattr(TimeEntry, field) == value)
    if query.date_from:
        conditions.append(TimeEntry.date >= query.date_from)
    if query.date_to:
        conditions.append(TimeEntry.date <= query.date_to)
    return record_page(ctx.db, list_order(entry_select().where(*conditions)), query, ENTRY_FLAGS)


def get_entry(ctx, *, entry_id: str) -> dict:
    load_entry(ctx, entry_id)
    return entry_row(ctx.db, entry_id)


# ---- writing ------------------------------------------------------------------------------------

def create_entry(ctx, *, data) -> dict:
    values = data.model_dump()
    values["user_id"] = values.get("user_id") or ctx.user_id
    _check_owner(ctx, values["user_id"])
    _check_references(ctx, values)
    _check_day(ctx, values["user_id"], values["date"], values["hours"])
    if values["status"] == "submitted":
        values["submitted_at"] = utcnow()
    entry = TimeEntry(**values, created_by=ctx.user_id)
    ctx.db.add(entry)
    ctx.db.flush()
    return entry_row(ctx.db, entry.id)


def _require_editable(entry: TimeEntry, action: str) -> None:
    if entry.status not in EDITABLE:
        raise Conflict(f"A {entry.status} time entry cannot be {action}; only draft or rejected entries can")


def update_entry(ctx, *, entry_id: str, data) -> dict:
    """The owner, or a manager whose scope holds the entry, while it is draft or rejected.
    The owner (user_id) is fixed at creation: sent back as stored it is no change, another is a 400 naming it
    (session 28: it was dropped with a 200, so a client moving an entry to someone else was told it had)."""
    entry = _locked(ctx, entry_id)
    changes = data.changes()
    if changes.pop("user_id", entry.user_id) != entry.user_id:
        raise bad_field("user_id", "cannot be changed: a time entry stays its owner's (delete it and log it again)")
    if changes.get("status") == entry.status:
        del changes["status"]  # the stored status sent back (a rejected entry read and saved): no change
    elif "status" in changes and changes["status"] not in WRITABLE_STATUSES:
        raise bad_field("status", "may be set to draft or submitted only; approved and rejected come from the "
                                  "approve and reject actions")
    _require_editable(entry, "edited")
    _check_references(ctx, changes, entry)
    # the day is checked when the entry counts after the write and its day or hours change, or it counts again: an
    # entry sent back as read, or a rejected one (it counts again when resubmitted), is not (review of session 25)
    after = changes.get("status", entry.status)
    moved = changes.get("date", entry.date) != entry.date or changes.get("hours", entry.hours) != entry.hours
    if (after != "rejected" and moved) or _counts_again(entry, after):
        _check_day(ctx, entry.user_id, changes.get("date", entry.date), changes.get("hours", entry.hours), entry.id)
    if changes.get("status") == "submitted" and entry.status != "submitted":
        entry.submitted_at = utcnow()
    if any(getattr(entry, key) != value for key, value in changes.items() if key != "status"):
        entry.updated_by = ctx.user_id  # whose values these are now: an editor other than the owner does not approve
    for key, value in changes.items():
        setattr(entry, key, value)
    ctx.db.flush()
    return entry_row(ctx.db, entry_id)


def delete_entry(ctx, *, entry_id: str) -> None:
    """Draft and rejected entries; submitted and approved ones only with timesheets:manage."""
    entry = _locked(ctx, entry_id)
    if not ctx.can("timesheets", "manage"):
        _require_editable(entry, "deleted")
    try:
        with ctx.db.begin_nested():  # the invoices area's key refuses the delete of a billed entry (invoices_0004)
            ctx.db.delete(entry)
            ctx.db.flush()
    except DBAPIError as exc:  # pg8000 reports a foreign key violation (23503) as a DatabaseError
        # SQLite's message names no table (s27): the invoices key is the only one to time_entries
        if "invoice_time_entries" not in str(exc.orig) and "FOREIGN KEY constraint failed" not in str(exc.orig):
            raise
        raise Conflict("This time entry is billed by an invoice: remove its invoice line, or delete the invoice, "
                       "first") from exc


def submit_entry(ctx, *, entry_id: str) -> dict:
    entry = _locked(ctx, entry_id)
    _require_editable(entry, "submitted")
    if _counts_again(entry, "submitted"):
        _check_day(ctx, entry.user_id, entry.date, entry.hours, entry.id)
    entry.status = "submitted"
    entry.submitted_at = utcnow()
    ctx.db.flush()
    return entry_row(ctx.db, entry_id)


APPROVER_LEVELS = ("manager", "head", "executive")


def _decidable(ctx, entry_id: str, action: str) -> TimeEntry:
    """Approvers: managers (their team's entries, by scoping), heads and executives, or anyone holding
    timesheets:manage; never for their own entry, except an executive."""
    if ctx.principal.access_level not in APPROVER_LEVELS and not ctx.can("timesheets", "manage"):
        raise Forbidden(f"Only managers and above, or timesheets:manage, may {action} time entries")
    entry = _locked(ctx, entry_id)
    if entry.user_id == ctx.user_id and ctx.principal.access_level != "executive":
        raise Forbidden(f"You cannot {action} your own time entry")
    if entry.status != "submitted":
        raise Conflict(f"Only a submitted time entry can be {action}d; this one is {entry.status}")
    return entry


def approve_entry(ctx, *, entry_id: str) -> dict:
    entry = _decidable(ctx, entry_id, "approve")
    if entry.created_by == ctx.user_id and ctx.principal.access_level != "executive":
        # logged for someone else by the caller: approving it would make them author and approver at once
        raise Forbidden("You cannot approve a time entry you logged yourself")
    if entry.updated_by == ctx.user_id and ctx.principal.access_level != "executive":
        # the caller last changed a team member's entry: they would approve their own numbers
        raise Forbidden("You cannot approve a time entry you changed last; its owner or another approver decides")
    entry.status = "approved"
    entry.approved_by, entry.approved_at = ctx.user_id, utcnow()
    entry.rejected_by = entry.rejected_at = entry.rejection_reason = None
    ctx.db.flush()
    return entry_row(ctx.db, entry_id)


def reject_entry(ctx, *, entry_id: str, reason: str | None) -> dict:
    entry = _decidable(ctx, entry_id, "reject")
    entry.status = "rejected"
    entry.rejected_by, entry.rejected_at, entry.rejection_reason = ctx.user_id, utcnow(), reason
    ctx.db.flush()
    return entry_row(ctx.db, entry_id)
