"""The scheduled job leave-cache-refresh through the Lambda handler and the CLI, against the sandbox leave
ledger: run twice within the hour, one effect (developers' guide, scheduled jobs)."""
import json

from sqlalchemy import select

from chalicelib.areas.connections.models import UserMapping
from chalicelib.areas.leave.models import LeaveBalance, LeaveType
from chalicelib.core.ids import utcnow
from chalicelib.providers.payroll.sandbox import LEAVE_TYPES
from tests.factories import make_user


def _seed(db):
    """Two users mapped to ledger employees, one mapped to an employee the ledger refuses, one not mapped."""
    users = [make_user(db) for _ in range(4)]
    for user, ledger_id in zip(users, ("EMP-0001", "EMP-0002", "EMP-invalid")):
        db.add(UserMapping(user_id=user.id, ledger_id=ledger_id, updated_at=utcnow()))
    db.flush()
    return users


def _cache(db):
    types = db.execute(select(LeaveType.id, LeaveType.name, LeaveType.fetched_at).order_by(LeaveType.id)).all()
    balances = db.execute(select(LeaveBalance.id, LeaveBalance.user_id, LeaveBalance.leave_type_id,
                                 LeaveBalance.balance_hours, LeaveBalance.fetched_at)
                          .order_by(LeaveBalance.user_id, LeaveBalance.leave_type_id)).all()
    return types, balances


def _assert_first_effect(db, users):
    types, balances = _cache(db)
    assert {t.id for t in types} == {t["id"] for t in LEAVE_TYPES}
    per_user = {u.id: sum(1 for b in balances if b.user_id == u.id) for u in users}
    assert per_user == {users[0].id: 3, users[1].id: 3, users[2].id: 0, users[3].id: 0}
    return types, balances


FIRST = {"types": len(LEAVE_TYPES), "balances_refreshed": 2, "balances_failed": 1}
# within the hour: nothing fetched (the refused employee is asked again: it has nothing cached)
SECOND = {"types": 0, "balances_refreshed": 0, "balances_failed": 1}


def test_leave_cache_refresh_through_the_scheduled_handler(db, client):
    users = _seed(db)
    assert _cache(db) == ([], [])
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    assert client.lambda_.invoke("leave_cache_refresh", event).payload == FIRST
    db.expire_all()
    first = _assert_first_effect(db, users)
    assert client.lambda_.invoke("leave_cache_refresh", event).payload == SECOND
    db.expire_all()
    assert _cache(db) == first  # not one row rewritten


def test_leave_cache_refresh_through_the_cli(db, capsys):
    from chalicelib import cli

    users = _seed(db)
    assert cli.main(["job", "leave-cache-refresh"]) == 0
    assert json.loads(capsys.readouterr().out) == FIRST
    db.expire_all()
    first = _assert_first_effect(db, users)
    assert cli.main(["job", "leave-cache-refresh"]) == 0
    assert json.loads(capsys.readouterr().out) == SECOND
    db.expire_all()
    assert _cache(db) == first


def test_refused_types_still_refresh_every_balance_and_say_why(db, capsys, monkeypatch):
    """Audit 10: the types (Xero PayItems) and the balances (Employees/{id}) are separate calls: a refusal of the
    types is reported in `types_failed` and each user's balances still refreshed, once (run again: nothing)."""
    from chalicelib import cli
    from chalicelib.core.errors import BadGateway
    from chalicelib.providers.payroll.sandbox import SandboxPayroll

    def refused(self):
        raise BadGateway("The accounting ledger refused the request: AuthorizationUnsuccessful")

    monkeypatch.setattr(SandboxPayroll, "list_leave_types", refused)
    users = _seed(db)
    failed = "The accounting ledger refused the request: AuthorizationUnsuccessful"
    assert cli.main(["job", "leave-cache-refresh"]) == 0
    assert json.loads(capsys.readouterr().out) == {"types": 0, "balances_refreshed": 2, "balances_failed": 1,
                                                   "types_failed": failed}
    db.expire_all()
    types, balances = _cache(db)
    assert types == []
    assert {u.id: sum(1 for b in balances if b.user_id == u.id) for u in users} == {
        users[0].id: 3, users[1].id: 3, users[2].id: 0, users[3].id: 0}
    assert cli.main(["job", "leave-cache-refresh"]) == 0  # the types are asked again (none cached), balances not
    assert json.loads(capsys.readouterr().out) == {"types": 0, "balances_refreshed": 0, "balances_failed": 1,
                                                   "types_failed": failed}
    db.expire_all()
    assert _cache(db) == (types, balances)


def test_a_ledger_switched_off_is_skipped_without_any_call(db, capsys, set_env):
    from chalicelib import cli

    _seed(db)
    set_env(LEDGER_MODE="off")
    assert cli.main(["job", "leave-cache-refresh"]) == 0
    assert json.loads(capsys.readouterr().out) == {"types": 0, "balances_refreshed": 0, "balances_failed": 0,
                                                   "skipped": "The leave ledger is not configured"}
    db.expire_all()
    assert _cache(db) == ([], [])
