"""Session 23: the `leave-cache-refresh` job's database work is a fixed number of statements a run, one a batch of
users (their mappings) and three a user refreshed (its lock, DELETE and INSERT, written right after its call: a
booking's drop made meanwhile must meet them, test_refresh_booking_drop_s23.py); it was five a user. The leave
ledger is asked once per user (Xero Payroll AU answers one employee's balances a call:
chalicelib/providers/payroll/base.py), with no transaction open."""
from datetime import timedelta

from sqlalchemy import func, select, update

from chalicelib.areas.leave.models import LeaveBalance
from chalicelib.core.ids import utcnow
from tests.factories import make_user

from .factories import map_user

SANDBOX = "payroll_sandbox_leave_applications"  # the sandbox ledger's own reads: the provider call, not the job's


def _ours(statements) -> list[str]:
    return [s for s in _counted(statements) if SANDBOX not in s]


def _counted(statements) -> list[str]:
    """As the count_queries fixture counts: savepoints left out."""
    return [s for s in statements if not s.strip().upper().startswith(("SAVEPOINT", "RELEASE", "ROLLBACK TO"))]


def _age(db):
    db.execute(update(LeaveBalance).values(fetched_at=utcnow() - timedelta(hours=2)))
    db.flush()


def _rows(db) -> dict:
    db.expire_all()
    return dict(db.execute(select(LeaveBalance.user_id, func.count()).group_by(LeaveBalance.user_id)).all())


def test_the_refresh_costs_three_statements_a_user_and_one_a_batch(db, count_queries):
    from chalicelib.areas.leave.jobs import cache_refresh

    assert cache_refresh()["types"] > 0  # the types cached first: both runs below refresh balances only
    users, counts, calls = [], [], []
    for size in (3, 30):
        for _ in range(size - len(users)):
            user = make_user(db)
            map_user(db, user, ledger_id=f"EMP-{len(users):04d}")
            users.append(user)
        _age(db)
        with count_queries() as counted:
            assert cache_refresh() == {"types": 0, "balances_refreshed": size, "balances_failed": 0}
        counts.append(len(_ours(counted.statements)))
        calls.append(counted.count - counts[-1])
        assert _rows(db) == {user.id: 3 for user in users}
    per_user = 3  # Postgres: the lock, the DELETE (a CTE with the drop check), the INSERT; SQLite: no lock, but the
    # drop check its own SELECT before the DELETE (service_cache._delete_unless_dropped, s27)
    assert counts[1] - counts[0] == 27 * per_user, counts  # 3 and 30 users: one batch each
    assert calls == [3, 30]  # the ledger: one call per user
    with count_queries() as again:  # within the hour: nothing asked, nothing written
        assert cache_refresh() == {"types": 0, "balances_refreshed": 0, "balances_failed": 0}
    assert len(_ours(again.statements)) == again.count < counts[0]


def test_batches_of_users_each_refused_user_counted_and_the_others_kept(db, count_queries):
    from chalicelib.areas.leave.jobs import cache_refresh
    from chalicelib.areas.leave.service_cache import refresh_stale
    from chalicelib.core.context import job_context

    cache_refresh()
    users = [make_user(db) for _ in range(7)]
    for n, user in enumerate(users):
        map_user(db, user, ledger_id="EMP-invalid-1" if n == 3 else f"EMP-{n:04d}")
    with count_queries() as counted, job_context() as ctx:
        assert refresh_stale(ctx, batch=3) == {"types": 0, "balances_refreshed": 6, "balances_failed": 1}
    with count_queries() as one, job_context() as ctx:  # the refused user is asked again (nothing cached): alone
        assert refresh_stale(ctx, batch=3) == {"types": 0, "balances_refreshed": 0, "balances_failed": 1}
    # three batches of (3, 3, 1) users, each its mapping read, and each of the six users refreshed its lock, one
    # DELETE and one INSERT; then one batch of the refused user alone: its mapping read, nothing written
    assert _rows(db) == {user.id: 3 for n, user in enumerate(users) if n != 3}
    per_user = 3  # on either dialect (above)
    assert len(_ours(counted.statements)) - len(_ours(one.statements)) == 2 + 6 * per_user, _ours(counted.statements)
