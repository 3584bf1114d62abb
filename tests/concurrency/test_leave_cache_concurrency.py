"""Leave types and balances refreshed by several requests at once, against the real HTTP server of
tests/concurrency (each request commits for real): every one answers the cache, none a 409 or 500 from two
refreshes replacing the same cached rows."""
from __future__ import annotations

import secrets

from sqlalchemy import func, select

from tests.concurrency.test_concurrency import _all_at_once, _call, _token
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there

AT_ONCE = 10


def test_types_and_balances_refreshed_at_once_all_answer(live):
    from chalicelib.areas.connections.models import UserMapping
    from chalicelib.areas.leave.models import LeaveBalance, LeaveType
    from chalicelib.core.ids import utcnow
    from tests.factories import make_user

    base, sessions = live
    tag = secrets.token_hex(4)
    with sessions() as db:
        employee = make_user(db, email=f"leave-cache-{tag}@agency.test")
        db.add(UserMapping(user_id=employee.id, ledger_id=f"EMP-{tag}", updated_at=utcnow()))
        db.commit()
    token = _token(employee)
    assert _call(base, "GET", "/api/leave/types", token)[0] == 200  # the server warmed up: the calls below meet
    with sessions() as db:
        db.execute(LeaveType.__table__.delete())  # no cache: every GET /types refreshes it
        db.commit()
    types = _all_at_once([lambda: _call(base, "GET", "/api/leave/types", token) for _ in range(AT_ONCE)])
    assert [status for status, _ in types] == [200] * AT_ONCE, types
    assert all(len(body["types"]) == len(types[0][1]["types"]) > 0 for _, body in types), types
    balances = _all_at_once([lambda: _call(base, "POST", "/api/leave/balances/refresh", token)
                             for _ in range(AT_ONCE)])
    assert [status for status, _ in balances] == [200] * AT_ONCE, balances
    with sessions() as db:
        kept = db.scalar(select(func.count()).select_from(LeaveBalance).where(LeaveBalance.user_id == employee.id))
        assert kept == len(balances[0][1]["balances"]) > 0
        assert db.scalar(select(func.count()).select_from(LeaveType)) == len(types[0][1]["types"])
