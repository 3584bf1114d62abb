"""Leave types and balances cached from the leave ledger (Xero Payroll AU) for one hour (document 2, Limits).

- Types are organisation-wide: `GET /types` answers the cache, refreshed first when it is empty or older than an
  hour. A refresh that fails with a cache in hand answers the cache (stale beats nothing); with none it fails
  (503 not configured, 502/503/504 from the ledger).
- Balances are per user and need the user's ledger employee mapping (connections area): 409 without one.
  `GET /balances` answers the cache when younger than an hour AND fetched for the user's current mapping (each
  row records its `ledger_employee_id`; a changed or cleared mapping, or NULL from before leave_0005, is stale);
  `POST /balances/refresh` always asks the ledger. Leave the app books in or reverses from the ledger drops the
  user's rows (`mark_balances_stale`, service_integrations), so the next read asks again.
- The ledger is asked with no transaction open (ctx.release_connection); a refresh replaces the cached rows in
  one DELETE and one INSERT.
- The `leave-cache-refresh` job refreshes the types and every mapped user's balances older than an hour.
"""
from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import case, delete, func, select

from chalicelib.core.errors import Conflict, DomainError
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_rows, lock_key
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.serialize import row_dict

from .models import LeaveBalance, LeaveType

CACHE_TTL = timedelta(hours=1)
log = logging.getLogger("wms.leave")


def _payroll(ctx):
    from chalicelib.providers.payroll import get_payroll

    return get_payroll(ctx.db)


def ledger_employee_ids(db, user_ids) -> dict[str, str]:
    """`{user_id: ledger employee id}` of the users mapped in the connections area (one statement)."""
    from chalicelib.areas.connections import service as connections_service

    return {user_id: ids["ledger_id"] for user_id, ids in connections_service.user_mappings(db, user_ids).items()
            if ids.get("ledger_id")}


def planner_person_ids(db, user_ids) -> dict[str, str]:
    from chalicelib.areas.connections import service as connections_service

    return {user_id: ids["planner_id"] for user_id, ids in connections_service.user_mappings(db, user_ids).items()
            if ids.get("planner_id")}


# ---------------------------------------------------------------- types

def _type_records(db) -> list[dict]:
    rows = db.scalars(select(LeaveType).order_by(LeaveType.name, LeaveType.id).limit(LIST_LIMIT))
    return [row_dict(row, ("id", "name", "is_paid"), flags=("is_paid",)) for row in rows]


def _store_types(db, types: list[dict]) -> None:
    now = utcnow()
    lock_key(db, "leave-types")  # two refreshes at once take turns: the second replaces the first's rows (was 409)
    db.execute(delete(LeaveType).execution_options(synchronize_session=False))
    insert_rows(db, LeaveType, [{"id": t["id"], "name": t["name"], "is_paid": bool(t["is_paid"]), "fetched_at": now}
                                for t in types])


def refresh_types(ctx) -> int:
    """Ask the ledger for the leave types and replace the cache; answers how many."""
    payroll = _payroll(ctx)
    ctx.release_connection()
    types = payroll.list_leave_types()
    _store_types(ctx.db, types)
    ctx.db.flush()
    return len(types)


def list_types(ctx) -> list[dict]:
    oldest = ctx.db.scalar(select(func.min(LeaveType.fetched_at)))
    if oldest is None or oldest < utcnow() - CACHE_TTL:
        try:
            refresh_types(ctx)
        except DomainError:
            if oldest is None:
                raise
            log.warning("leave types refresh failed; answering the cache of %s", oldest.isoformat())
    return _type_records(ctx.db)


# ---------------------------------------------------------------- balances

def _balance_records(db, user_id: str, employee: str) -> list[dict]:
    rows = db.scalars(select(LeaveBalance).where(LeaveBalance.user_id == user_id,
                                                 LeaveBalance.ledger_employee_id == employee)
                      .order_by(LeaveBalance.leave_type_name, LeaveBalance.leave_type_id).limit(LIST_LIMIT))
    return [row_dict(row, ("id", "leave_type_id", "leave_type_name", "balance_hours", "fetched_at")) for row in rows]


def _store_balances(db, user_id: str, employee: str, balances: list[dict]) -> None:
    """Replace the user's cached rows with `balances`, as fetched for the ledger employee `employee`."""
    now = utcnow()
    lock_key(db, "leave-balances", user_id)  # as _store_types: concurrent refreshes of one user take turns
    db.execute(delete(LeaveBalance).where(LeaveBalance.user_id == user_id).execution_options(synchronize_session=False))
    insert_rows(db, LeaveBalance, [{"user_id": user_id, "ledger_employee_id": employee,
                                    "leave_type_id": b["leave_type_id"], "leave_type_name": b["leave_type_name"],
                                    "balance_hours": b["balance_hours"], "fetched_at": now} for b in balances])


def mark_balances_stale(db, user_id: str) -> None:
    """Drop the user's cached balances (one statement), so that the next read asks the ledger: the app has just
    booked or reversed leave of theirs there. Runs in the caller's unit of work; asks the ledger nothing. It takes
    the refresh's lock first (`_store_balances`): a refresh still writing balances fetched before the booking is
    waited for, and its rows dropped, instead of surviving the drop."""
    lock_key(db, "leave-balances", user_id)
    db.execute(delete(LeaveBalance).where(LeaveBalance.user_id == user_id).execution_options(synchronize_session=False))


def _employee_id(ctx, user_id: str) -> str:
    employee = ledger_employee_ids(ctx.db, [user_id]).get(user_id)
    if not employee:
        raise Conflict("Your account has no ledger employee mapping: an executive maps it in the connections "
                       "settings (user mappings)")
    return employee


def refresh_balances(ctx, user_id: str | None = None) -> list[dict]:
    user_id = user_id or ctx.user_id
    employee = _employee_id(ctx, user_id)
    payroll = _payroll(ctx)
    ctx.release_connection()
    balances = payroll.leave_balances(employee)
    _store_balances(ctx.db, user_id, employee, balances)
    ctx.db.flush()
    return _balance_records(ctx.db, user_id, employee)


def list_balances(ctx) -> list[dict]:
    """The cache when every row of the user's is younger than an hour and was fetched for the employee they are
    mapped to now (a remap, or rows from before leave_0005, make it stale); else fetched again. Three statements
    either way before a fetch: the mapping, the check, the rows."""
    employee = _employee_id(ctx, ctx.user_id)  # 409 without a mapping, cached or not
    fetched, others = ctx.db.execute(
        select(func.min(LeaveBalance.fetched_at),
               func.count(case((LeaveBalance.ledger_employee_id == employee, None), else_=1)))  # rows of another
        .where(LeaveBalance.user_id == ctx.user_id)).one()
    if fetched is not None and not others and fetched >= utcnow() - CACHE_TTL:
        return _balance_records(ctx.db, ctx.user_id, employee)
    return refresh_balances(ctx)


# ---------------------------------------------------------------- the hourly job

def _fresh_users(db, mapped: dict[str, str]) -> set[str]:
    """The users of `mapped` (`{user_id: ledger employee id}`) whose cached rows are all younger than an hour and
    fetched for that employee (list_balances' rule; one statement)."""
    if not mapped:
        return set()
    cutoff = utcnow() - CACHE_TTL
    groups: dict[str, list] = {}
    for user_id, employee, oldest in db.execute(
            select(LeaveBalance.user_id, LeaveBalance.ledger_employee_id, func.min(LeaveBalance.fetched_at))
            .where(LeaveBalance.user_id.in_(list(mapped)))
            .group_by(LeaveBalance.user_id, LeaveBalance.ledger_employee_id)):
        groups.setdefault(user_id, []).append(employee == mapped[user_id] and oldest >= cutoff)
    return {user_id for user_id, fresh in groups.items() if all(fresh)}


def refresh_stale(ctx) -> dict:
    """Refresh the types when older than an hour, and each mapped user's balances older than an hour (or never
    fetched). Run again within the hour: nothing is fetched. A user whose refresh fails is counted in
    `failed` and the others go on; so do the balances when the types fail (another call, another scope: the
    answer says why in `types_failed`). Only a ledger that is off or not connected stops the run: ServiceUnavailable
    from get_payroll, raised before anything is asked (the job answers `skipped`)."""
    from chalicelib.core.models import User

    _payroll(ctx)  # off or not connected: raised here, before any call (jobs.cache_refresh answers `skipped`)
    types, types_failed = 0, None
    oldest = ctx.db.scalar(select(func.min(LeaveType.fetched_at)))
    if oldest is None or oldest < utcnow() - CACHE_TTL:
        try:
            types = refresh_types(ctx)
        except DomainError as exc:  # refused, rate-limited, unreachable: the balances still go on
            types_failed = exc.message
            log.warning("leave types refresh failed: %s", exc.message)
    active = list(ctx.db.scalars(select(User.id).where(User.is_active.is_(True))))
    mapped = ledger_employee_ids(ctx.db, active)
    fresh = _fresh_users(ctx.db, mapped)
    refreshed = failed = 0
    for user_id in mapped:
        if user_id in fresh:
            continue
        try:
            refresh_balances(ctx, user_id)
            refreshed += 1
        except DomainError as exc:
            failed += 1
            log.warning("leave balances refresh failed for %s: %s", user_id, exc.message)
    answer = {"types": types, "balances_refreshed": refreshed, "balances_failed": failed}
    if types_failed is not None:
        answer["types_failed"] = types_failed
    return answer
