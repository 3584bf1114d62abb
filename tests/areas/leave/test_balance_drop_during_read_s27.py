"""Session 27 (replay27): balances read from the ledger before a booking, and written after the booking dropped that
same user's cache (`mark_balances_stale`), were stored as fresh (`fetched_at` now) for up to an hour. The drop is
now recorded per user (`leave_balance_drops`, leave_0007) and a write of balances whose read began before the
user's last drop stores nothing: the job leaves the user stale (the next read or run asks again), and the
user's own refresh asks the ledger once more."""
from decimal import Decimal

from sqlalchemy import func, select

from chalicelib.areas.leave.models import LeaveBalance
from chalicelib.areas.leave.service_cache import mark_balances_stale
from chalicelib.providers.payroll.sandbox import SandboxPayroll
from tests.areas.leave.factories import map_user
from tests.factories import make_user


def _rows(db, user) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(LeaveBalance).where(LeaveBalance.user_id == user.id))


def test_a_booking_drop_during_the_same_users_call_is_lost(db, monkeypatch):
    from chalicelib.areas.leave.jobs import cache_refresh

    cache_refresh()  # the types first
    user = make_user(db)
    map_user(db, user, ledger_id="EMP-0001")
    original = SandboxPayroll.leave_balances

    def leave_balances(self, employee_id):
        answer = original(self, employee_id)  # read before the booking
        mark_balances_stale(db, user.id)  # the leave booked in the ledger, the user's cache dropped, committed
        db.flush()
        return answer

    monkeypatch.setattr(SandboxPayroll, "leave_balances", leave_balances)
    counted = cache_refresh()
    kept = _rows(db, user)
    assert kept == 0, f"{kept} balance rows fetched before the booking cached as fresh after its drop"
    assert counted["balances_refreshed"] == 0, counted  # nothing written for the user: not counted refreshed
    monkeypatch.undo()
    assert cache_refresh()["balances_refreshed"] == 1  # still stale: the next run asks again and keeps it
    assert _rows(db, user) == 3


def test_a_drop_before_the_read_began_does_not_hold_the_write_back(db):
    from chalicelib.areas.leave.jobs import cache_refresh

    cache_refresh()
    user = make_user(db)
    map_user(db, user, ledger_id="EMP-0001")
    mark_balances_stale(db, user.id)  # booked earlier: the read below is after it
    db.flush()
    assert cache_refresh()["balances_refreshed"] == 1
    assert _rows(db, user) == 3


def test_the_users_own_refresh_asks_again_when_a_drop_came_during_its_read(api, db, monkeypatch):
    user = make_user(db)
    map_user(db, user, ledger_id="EMP-0001")
    original, asked = SandboxPayroll.leave_balances, []

    def leave_balances(self, employee_id):
        answer = original(self, employee_id)
        asked.append(employee_id)
        if len(asked) == 1:  # the first read was before a booking whose drop lands during it
            mark_balances_stale(db, user.id)
            db.flush()
            return [{**row, "balance_hours": Decimal("999.00")} for row in answer]
        return answer

    monkeypatch.setattr(SandboxPayroll, "leave_balances", leave_balances)
    refreshed = api.post("/api/leave/balances/refresh", as_=user)
    assert refreshed.status == 200, refreshed
    assert len(asked) == 2  # asked again: the first answer predates the booking
    assert refreshed.json["balances"] and all(b["balance_hours"] != 999 and b["balance_hours"] != "999.00"
                                              for b in refreshed.json["balances"]), refreshed.json
    db.expire_all()
    assert [row.balance_hours for row in db.scalars(select(LeaveBalance).where(LeaveBalance.user_id == user.id))
            if row.balance_hours == Decimal("999.00")] == []
