"""Leave types and balances cached from the leave ledger (Xero Payroll AU) for one hour (document 2, Limits).

- Types are organisation-wide: `GET /types` answers the cache, refreshed first when it is empty or older than an
  hour. A refresh that fails with a cache in hand answers the cache (stale beats nothing); with none it fails
  (503 not configured, 502/503/504 from the ledger).
- Balances are per user and need the user's ledger employee mapping (connections area): 409 without one.
  `GET /balances` answers the cache when younger than an hour AND fetched for the user's current mapping (each
  row records its `ledger_employee_id`; a changed or cleared mapping, or NULL from before leave_0005, is stale);
  `POST /balances/refresh` always asks the ledger. Leave the app books in or reverses from the ledger drops the
  user's rows (`mark_balances_stale`, service_integrations), so the next read asks again, and records when
  (`leave_balance_drops`, session 27): balances whose ledger read began before the user's last drop may predate the
  booking, and are not cached as fresh (`_store_balances`): the job writes nothing for that user (still stale: the
  next read or run asks again), the user's refresh asks once more (REFRESH_ATTEMPTS) and, met by yet another drop,
  stores its last answer already stale (an hour old), so the next read asks again.
- The ledger is asked with no transaction open (ctx.release_connection); a refresh replaces the cached rows in
  one DELETE and one INSERT.
- The `leave-cache-refresh` job refreshes the types and every mapped user's balances older than an hour, in
  batches of users: the ledger is asked once per user (one employee a call), and each batch's database work is a
  fixed number of statements (the mapping, the locks, one DELETE, one INSERT) whatever its size (session 23).
"""
from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import case, delete, func, select

from chalicelib.core.errors import Conflict, DomainError
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_rows, lock_key, upsert_rows
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.serialize import row_dict

from .models import LeaveBalance, LeaveBalanceDrop, LeaveType

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


def _dropped_since(user_id: str, read_at):
    """The user's drop (`leave_balance_drops`) made at or after `read_at`, as a query."""
    return select(LeaveBalanceDrop.user_id).where(LeaveBalanceDrop.user_id == user_id,
                                                  LeaveBalanceDrop.dropped_at >= read_at)


def _delete_unless_dropped(db, user_id: str, read_at) -> bool:
    """Delete the user's cached rows unless their cache was dropped at or after `read_at`; answers whether it was
    not (the caller writes). One statement on Postgres (the DELETE a data-modifying CTE of the check: both see the
    same snapshot, taken after the caller's lock), so a refresh stays three statements a user."""
    gone = delete(LeaveBalance).where(LeaveBalance.user_id == user_id)
    if read_at is None:  # no read time known: replaced as before
        db.execute(gone.execution_options(synchronize_session=False))
        return True
    dropped = _dropped_since(user_id, read_at)
    if db.get_bind().dialect.name == "postgresql":
        cte = gone.where(~dropped.exists()).returning(LeaveBalance.id).cte("gone")
        return not db.scalar(select(dropped.exists()).add_cte(cte))
    if db.scalar(select(dropped.exists())):
        return False
    db.execute(gone.execution_options(synchronize_session=False))
    return True


def _store_balances(db, user_id: str, employee: str, balances: list[dict], *, read_at=None,
                    last_attempt: bool = False) -> bool:
    """Replace the user's cached rows with `balances`, as fetched for the ledger employee `employee` by a read that
    began at `read_at` (taken before the ledger call), unless the user's cache was dropped since (a booking made
    while the ledger answered: the balances may predate it; session 27): then nothing is written, and False
    answered, the rows kept as they are (dropped, or written by a later read). `last_attempt`: written all the
    same, stale (`fetched_at` an hour before the read), so that they are answered but the next read asks again."""
    now = utcnow()
    lock_key(db, "leave-balances", user_id)  # as _store_types: concurrent refreshes of one user take turns
    if not _delete_unless_dropped(db, user_id, read_at):
        if not last_attempt:
            return False
        db.execute(delete(LeaveBalance).where(LeaveBalance.user_id == user_id)
                   .execution_options(synchronize_session=False))
        now = read_at - CACHE_TTL
    insert_rows(db, LeaveBalance, [{"user_id": user_id, "ledger_employee_id": employee,
                                    "leave_type_id": b["leave_type_id"], "leave_type_name": b["leave_type_name"],
                                    "balance_hours": b["balance_hours"], "fetched_at": now} for b in balances])
    return True


def mark_balances_stale(db, user_id: str) -> None:
    """Drop the user's cached balances, so that the next read asks the ledger: the app has just booked or reversed
    leave of theirs there; and record when (`leave_balance_drops`), so that a refresh whose read began before it
    caches nothing it read (`_store_balances`, session 27). Runs in the caller's unit of work; asks the ledger
    nothing. It takes the refresh's lock first (`_store_balances`): a refresh still writing balances fetched before
    the booking is waited for, and its rows dropped, instead of surviving the drop."""
    lock_key(db, "leave-balances", user_id)
    db.execute(delete(LeaveBalance).where(LeaveBalance.user_id == user_id).execution_options(synchronize_session=False))
    upsert_rows(db, LeaveBalanceDrop, {"user_id": user_id, "dropped_at": utcnow()}, conflict=("user_id",))


NO_MAPPING = ("Your account has no ledger employee mapping: an executive maps it in the connections settings "
              "(user mappings)")


def _employee_id(ctx, user_id: str) -> str:
    employee = ledger_employee_ids(ctx.db, [user_id]).get(user_id)
    if not employee:
        raise Conflict(NO_MAPPING)
    return employee


REFRESH_ATTEMPTS = 2  # the user's refresh asks the ledger again once when a booking's drop came during its read


def refresh_balances(ctx, user_id: str | None = None) -> list[dict]:
    """Ask the ledger for the user's balances and cache them. A booking's drop made while the ledger answered (its
    balances may predate the booking) has it ask once more, with no transaction open; the last attempt's answer is
    stored all the same, stale when another drop came during it (`_store_balances`)."""
    user_id = user_id or ctx.user_id
    employee = _employee_id(ctx, user_id)
    payroll = _payroll(ctx)
    for attempt in range(1, REFRESH_ATTEMPTS + 1):
        ctx.release_connection()  # nothing held while the ledger answers (the lock of a refused write let go)
        read_at = utcnow()  # before the call: a drop at or after it may postdate what the ledger answers
        balances = payroll.leave_balances(employee)
        if _store_balances(ctx.db, user_id, employee, balances, read_at=read_at,
                           last_attempt=attempt == REFRESH_ATTEMPTS):
            break
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


REFRESH_BATCH = 50  # users a batch of the hourly job asks the ledger for before writing their balances


def refresh_stale(ctx, *, batch: int = REFRESH_BATCH, budget=None) -> dict:
    """Refresh the types when older than an hour, and each mapped user's balances older than an hour (or never
    fetched). Run again within the hour: nothing is fetched. A user whose refresh fails is counted in
    `failed` and the others go on; so do the balances when the types fail (another call, another scope: the
    answer says why in `types_failed`). Only a ledger that is off or not connected stops the run: ServiceUnavailable
    from get_payroll, raised before anything is asked (the job answers `skipped`).

    The stale users go in batches of `batch`: their mappings read again in one statement (a user unmapped since is a
    failure, as `refresh_balances` answers 409; a remapped one is asked for the new employee), then each user asked
    with no transaction open and their rows replaced right after (`_store_balances`: the lock, one DELETE, one INSERT),
    committed before the next user's call. Three statements a user and one a batch (session 23: it was five a user;
    writing a whole batch at once after its calls let a booking's drop be overwritten, session 23's review).

    `budget` (core.timeutil.TimeBudget; the job's, jobs.CACHE_REFRESH_SECONDS): no user's ledger call is started
    once it is spent; the balances fetched so far are written and the answer says `more`. The users refreshed are
    fresh for the next run, which goes on with the others (session 23: a batch is up to 50 calls of ~25 s)."""
    from chalicelib.core.models import User

    payroll = _payroll(ctx)  # off or not connected: raised here, before any call (jobs.cache_refresh: `skipped`)
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
    stale = [user_id for user_id in mapped if user_id not in fresh]
    refreshed = failed = 0
    more = False
    for start in range(0, len(stale), batch):
        if budget is not None and budget.spent():
            more = True
            break
        users = stale[start:start + batch]
        employees = ledger_employee_ids(ctx.db, users)  # as refresh_balances reads it, just before asking
        for user_id in users:
            if budget is not None and budget.spent():  # the users left are still stale: the next run's
                more = True
                break
            employee = employees.get(user_id)
            ctx.release_connection()  # the last user's writes committed: no transaction nor lock during the call
            read_at = utcnow()  # before the call: a booking's drop at or after it keeps these balances out
            try:
                if not employee:
                    raise Conflict(NO_MAPPING)
                balances = payroll.leave_balances(employee)
            except DomainError as exc:
                failed += 1
                log.warning("leave balances refresh failed for %s: %s", user_id, exc.message)
                continue
            # written at once (its lock, DELETE and INSERT), as refresh_balances does: a booking's drop made while a
            # later user of the batch was asked then meets these rows and drops them (written after the batch's
            # calls, balances fetched before the booking were cached as fresh; session 23's review)
            # a drop of the user's made during the call (session 27): nothing written, the user still stale, asked
            # again by the next read or run, and not counted refreshed
            if _store_balances(ctx.db, user_id, employee, balances, read_at=read_at):
                refreshed += 1
        ctx.db.flush()
        if more:
            break
    answer = {"types": types, "balances_refreshed": refreshed, "balances_failed": failed}
    if types_failed is not None:
        answer["types_failed"] = types_failed
    if more:
        answer["more"] = True
    return answer
