"""Leave types and balances cached from the leave ledger for an hour, the refresh bypassing it, the mapping a
balance needs, and the hourly `leave-cache-refresh` job (sandbox leave ledger)."""
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from chalicelib.areas.connections.models import UserMapping
from chalicelib.areas.leave.models import LeaveBalance, LeaveType
from chalicelib.core.ids import utcnow
from chalicelib.providers.payroll.sandbox import LEAVE_TYPES
from tests.factories import make_user


def _map(db, user, ledger_id="EMP-0001", planner_id=None):
    db.merge(UserMapping(user_id=user.id, ledger_id=ledger_id, planner_id=planner_id, updated_at=utcnow()))
    db.flush()


@pytest.mark.smoke
def test_types_are_cached_for_an_hour(api, db, employee):
    answer = api.get("/api/leave/types", as_=employee)
    assert answer.status == 200, answer
    types = answer.json["types"]
    assert {t["name"] for t in types} == {t["name"] for t in LEAVE_TYPES}
    assert {t["id"]: t["is_paid"] for t in types}[LEAVE_TYPES[3]["id"]] == 0
    db.execute(update(LeaveType).values(name="Renamed in cache"))
    assert {t["name"] for t in api.get("/api/leave/types", as_=employee).json["types"]} == {"Renamed in cache"}
    db.execute(update(LeaveType).values(fetched_at=utcnow() - timedelta(minutes=61)))
    assert "Annual Leave" in {t["name"] for t in api.get("/api/leave/types", as_=employee).json["types"]}


def test_types_answer_the_stale_cache_when_the_ledger_is_off(api, db, employee, set_env):
    api.get("/api/leave/types", as_=employee)
    db.execute(update(LeaveType).values(fetched_at=utcnow() - timedelta(hours=3)))
    set_env(LEDGER_MODE="off")
    assert len(api.get("/api/leave/types", as_=employee).json["types"]) == len(LEAVE_TYPES)
    db.execute(LeaveType.__table__.delete())
    answer = api.get("/api/leave/types", as_=employee)
    assert answer.status == 503 and "error" in answer.json


def test_a_request_names_a_cached_type(api, db, employee):
    api.get("/api/leave/types", as_=employee)
    body = {"leave_type_name": "Anything", "start_date": "2026-12-01", "end_date": "2026-12-01"}
    bad = api.post("/api/leave/requests", as_=employee, json={**body, "leave_type_id": "nope"})
    assert bad.status == 400 and bad.json["details"][0]["field"] == "leave_type_id"
    made = api.post("/api/leave/requests", as_=employee, json={**body, "leave_type_id": LEAVE_TYPES[0]["id"]})
    assert made.status == 201 and made.json["request"]["leave_type_name"] == "Annual Leave"


def test_balances_need_a_mapping_and_are_cached(api, db, employee):
    missing = api.get("/api/leave/balances", as_=employee)
    assert missing.status == 409 and "mapping" in missing.json["error"]
    assert api.post("/api/leave/balances/refresh", as_=employee).status == 409
    _map(db, employee)
    balances = api.get("/api/leave/balances", as_=employee).json["balances"]
    assert {b["leave_type_name"] for b in balances} == {"Annual Leave", "Personal/Carer's Leave", "Long Service Leave"}
    assert all(b["fetched_at"].endswith("Z") for b in balances)
    db.execute(update(LeaveBalance).values(balance_hours=1))
    assert {b["balance_hours"] for b in api.get("/api/leave/balances", as_=employee).json["balances"]} == {1.0}
    refreshed = api.post("/api/leave/balances/refresh", as_=employee).json["balances"]  # bypasses the cache
    assert {b["balance_hours"] for b in refreshed} != {1.0}
    db.execute(update(LeaveBalance).values(balance_hours=1, fetched_at=utcnow() - timedelta(hours=2)))
    assert {b["balance_hours"] for b in api.get("/api/leave/balances", as_=employee).json["balances"]} != {1.0}
    _map(db, employee, ledger_id="EMP-invalid")
    assert api.post("/api/leave/balances/refresh", as_=employee).status == 502


def _hours(answer):
    assert answer.status == 200, answer
    return {b["leave_type_id"]: b["balance_hours"] for b in answer.json["balances"]}


def _ledger_hours(db, ledger_id):
    from chalicelib.providers.payroll.sandbox import SandboxPayroll

    return {b["leave_type_id"]: b["balance_hours"] for b in SandboxPayroll(db=db).leave_balances(ledger_id)}


def _cached_for(db, user):
    db.expire_all()
    return set(db.scalars(select(LeaveBalance.ledger_employee_id).where(LeaveBalance.user_id == user.id)))


def test_a_corrected_mapping_is_never_answered_the_old_employees_balances(api, db, employee, exec_user):
    """Stale-cache audit: the cached rows record the ledger employee they were fetched for and are served only
    while it is the user's mapping, so an executive's correction (connections) is seen at once, not an hour later
    (another employee's HR data)."""
    mapping = f"/api/admin/connections/user-mappings/{employee.id}"
    assert api.put(mapping, as_=exec_user, json={"ledger_id": "EMP-0001"}).status == 200
    wrong = _hours(api.get("/api/leave/balances", as_=employee))
    assert wrong == _ledger_hours(db, "EMP-0001") != _ledger_hours(db, "EMP-0002")
    assert api.put(mapping, as_=exec_user, json={"ledger_id": "EMP-0002"}).status == 200
    assert _hours(api.get("/api/leave/balances", as_=employee)) == _ledger_hours(db, "EMP-0002")
    assert _cached_for(db, employee) == {"EMP-0002"}
    assert _hours(api.post("/api/leave/balances/refresh", as_=employee)) == _ledger_hours(db, "EMP-0002")
    assert _cached_for(db, employee) == {"EMP-0002"}  # the refresh records the employee too


def test_unmapped_then_remapped_within_the_hour_is_not_answered_the_first_employees_rows(api, db, employee,
                                                                                        exec_user):
    mapping = f"/api/admin/connections/user-mappings/{employee.id}"
    api.put(mapping, as_=exec_user, json={"ledger_id": "EMP-0001"})
    first = _hours(api.get("/api/leave/balances", as_=employee))
    assert api.put(mapping, as_=exec_user, json={"ledger_id": None}).status == 200
    assert api.get("/api/leave/balances", as_=employee).status == 409
    api.put(mapping, as_=exec_user, json={"ledger_id": "EMP-0003"})
    again = _hours(api.get("/api/leave/balances", as_=employee))
    assert again == _ledger_hours(db, "EMP-0003") != first


def test_balances_cached_before_the_employee_was_recorded_are_fetched_again(api, db, employee):
    """Rows from before leave_0005 have no ledger employee: stale, whatever their age."""
    _map(db, employee)
    api.get("/api/leave/balances", as_=employee)
    db.execute(update(LeaveBalance).values(balance_hours=1, ledger_employee_id=None))
    assert _hours(api.get("/api/leave/balances", as_=employee)) == _ledger_hours(db, "EMP-0001")
    assert _cached_for(db, employee) == {"EMP-0001"}


def test_the_job_refreshes_a_remapped_users_young_rows(db, employee):
    from chalicelib.areas.leave.jobs import cache_refresh

    _map(db, employee)
    assert cache_refresh()["balances_refreshed"] == 1
    _map(db, employee, ledger_id="EMP-0002")  # rows younger than an hour, of the old employee
    assert cache_refresh()["balances_refreshed"] == 1
    assert _cached_for(db, employee) == {"EMP-0002"}
    assert cache_refresh()["balances_refreshed"] == 0


def test_cache_refresh_job_is_idempotent(db, employee):
    from chalicelib.areas.leave.jobs import cache_refresh

    other = make_user(db)
    make_user(db)  # not mapped: not refreshed
    _map(db, employee)
    _map(db, other, ledger_id="EMP-0002")
    first = cache_refresh()
    assert first == {"types": len(LEAVE_TYPES), "balances_refreshed": 2, "balances_failed": 0}
    assert cache_refresh() == {"types": 0, "balances_refreshed": 0, "balances_failed": 0}  # within the hour
    assert db.scalar(select(func.count()).select_from(LeaveBalance)) == 6
    db.execute(update(LeaveBalance).where(LeaveBalance.user_id == other.id)
               .values(fetched_at=utcnow() - timedelta(hours=2)))
    assert cache_refresh()["balances_refreshed"] == 1


def test_the_job_is_listed(capsys):
    from chalicelib import cli

    assert "leave-cache-refresh" in cli.scheduled_jobs()


def test_types_and_balances_answer_at_most_500_rows(api, db, employee):
    """decisions.md section 4: a list with no stated limit answers at most 500 rows (the cache holds what the
    ledger answered, however many)."""
    from chalicelib.core.locks import insert_rows

    now = utcnow()
    insert_rows(db, LeaveType, [{"id": f"t{n:04d}", "name": f"Type {n:04d}", "is_paid": True, "fetched_at": now}
                                for n in range(501)])
    _map(db, employee)
    insert_rows(db, LeaveBalance, [{"user_id": employee.id, "ledger_employee_id": "EMP-0001", "leave_type_id": f"t{n:04d}",
                                    "leave_type_name": f"Type {n:04d}", "balance_hours": 1, "fetched_at": now}
                                   for n in range(501)])
    db.flush()
    types = api.get("/api/leave/types", as_=employee).json["types"]
    assert len(types) == 500 and types[0]["name"] == "Type 0000"
    balances = api.get("/api/leave/balances", as_=employee).json["balances"]
    assert len(balances) == 500 and balances[0]["leave_type_name"] == "Type 0000"


def test_a_failed_refresh_writes_nothing_and_keeps_the_cache(api, db, employee, monkeypatch):
    """The ledger is asked before anything is written: its failure (502) leaves the cached rows as they were,
    and with no cached types nothing is stored."""
    from chalicelib.core.errors import BadGateway
    from chalicelib.providers.payroll.sandbox import SandboxPayroll

    _map(db, employee)
    assert api.post("/api/leave/balances/refresh", as_=employee).status == 200
    before = sorted(db.execute(select(LeaveBalance.id, LeaveBalance.balance_hours, LeaveBalance.fetched_at)
                               .where(LeaveBalance.user_id == employee.id)).all())
    assert before
    _map(db, employee, ledger_id="EMP-invalid")
    refused = api.post("/api/leave/balances/refresh", as_=employee)
    assert refused.status == 502 and refused.json["error"]
    db.expire_all()
    assert sorted(db.execute(select(LeaveBalance.id, LeaveBalance.balance_hours, LeaveBalance.fetched_at)
                             .where(LeaveBalance.user_id == employee.id)).all()) == before

    def unreachable(self):
        raise BadGateway("Leave ledger unreachable (ConnectionError)")

    monkeypatch.setattr(SandboxPayroll, "list_leave_types", unreachable)
    failed = api.get("/api/leave/types", as_=employee)
    assert failed.status == 502 and failed.json == {"error": "Leave ledger unreachable (ConnectionError)"}
    assert db.scalar(select(func.count()).select_from(LeaveType)) == 0
