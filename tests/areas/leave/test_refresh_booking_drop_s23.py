"""Session 23 review: leave-cache-refresh writes each user's balances right after that user's ledger call. Batched,
it wrote them after the later users' calls, so a booking's drop (mark_balances_stale) made while a later user of
the batch was asked did not survive: the rows fetched before the booking were written afterwards, fresh for an hour."""
from sqlalchemy import func, select

from chalicelib.areas.leave.models import LeaveBalance
from chalicelib.areas.leave.service_cache import mark_balances_stale
from chalicelib.providers.payroll.sandbox import SandboxPayroll
from tests.areas.leave.factories import map_user
from tests.factories import make_user


def test_a_booking_drop_during_a_later_users_call_is_lost(db, monkeypatch):
    from chalicelib.areas.leave.jobs import cache_refresh

    cache_refresh()  # the types first
    users = [make_user(db) for _ in range(2)]
    by_employee = {}
    for n, user in enumerate(users):
        map_user(db, user, ledger_id=f"EMP-{n:04d}")
        by_employee[f"EMP-{n:04d}"] = user.id
    original, asked = SandboxPayroll.leave_balances, []

    def leave_balances(self, employee_id):
        asked.append(employee_id)
        if len(asked) == 2:  # the first user's leave booked (their cache dropped) while the second is asked
            mark_balances_stale(db, by_employee[asked[0]])
            db.flush()
        return original(self, employee_id)

    monkeypatch.setattr(SandboxPayroll, "leave_balances", leave_balances)
    cache_refresh()
    assert len(asked) == 2
    db.expire_all()
    first = by_employee[asked[0]]
    kept = db.scalar(select(func.count()).select_from(LeaveBalance).where(LeaveBalance.user_id == first))
    # the drop came after the first user's call: their rows, fetched before the booking, must not be cached as fresh
    assert kept == 0, f"{kept} balance rows fetched before the booking survived its drop"
