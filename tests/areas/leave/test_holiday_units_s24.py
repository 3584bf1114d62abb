"""The ledger takes the hours the app computed (session 24, docs/decisions/leave.md, Integrations): an approved
request's leave application carries its hours per working day (total_hours over its working days: weekdays that
are not the requester's public holidays; 7.6 a working day without total_hours), and the sandbox leave ledger,
as Xero given LeavePeriods, deducts exactly those. Audit: Thu 24 - Tue 29 December with the 25th and 28th public
holidays and 15.2 hours took 30.4 hours (7.6 every weekday) from the balance while the planner booked two days.
Through HTTP against Postgres: approve -> balance -> cancel -> balance back."""
from datetime import date
from decimal import Decimal

import pytest
from sqlalchemy import select

from chalicelib.areas.calendar.models import PublicHoliday
from chalicelib.core.errors import BadGateway
from chalicelib.providers.payroll.models import PayrollSandboxLeaveApplication
from chalicelib.providers.payroll.sandbox import LEAVE_TYPES, SandboxPayroll
from tests.areas.leave.factories import mapped_team

ANNUAL = LEAVE_TYPES[0]["id"]
SPAN = {"leave_type_id": ANNUAL, "leave_type_name": "Annual Leave", "start_date": "2026-12-24",
        "end_date": "2026-12-29"}


@pytest.fixture
def people(db):
    db.add_all([PublicHoliday(date=date(2026, 12, 25), name="Christmas Day"),
                PublicHoliday(date=date(2026, 12, 28), name="Boxing Day (observed)")])
    db.flush()
    return mapped_team(db, name="Eve Employee")


def _annual(api, user):
    answer = api.get("/api/leave/balances", as_=user)
    assert answer.status == 200, answer
    return {b["leave_type_id"]: b["balance_hours"] for b in answer.json["balances"]}[ANNUAL]


def _approve(api, people, body):
    from tests.areas.leave.factories import approved_leave

    path, request = approved_leave(api, people, body)
    assert request["ledger_leave_application_id"], request["integration_errors"]
    return path, request


def _application(db, application_id):
    db.expire_all()
    return db.get(PayrollSandboxLeaveApplication, application_id)


def test_a_request_over_public_holidays_takes_its_hours_and_gives_them_back_on_cancel(api, db, people):
    before = _annual(api, people["employee"])
    path, request = _approve(api, people, {**SPAN, "total_hours": 15.2})
    assert _application(db, request["ledger_leave_application_id"]).hours == Decimal("15.2")
    assert _annual(api, people["employee"]) == pytest.approx(before - 15.2)  # not 30.4: the holidays are not leave
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    assert _annual(api, people["employee"]) == pytest.approx(before)


def test_a_request_without_hours_takes_7_6_a_working_day(api, db, people):
    before = _annual(api, people["employee"])
    path, _ = _approve(api, people, SPAN)
    assert _annual(api, people["employee"]) == pytest.approx(before - 15.2)  # two working days, not four weekdays
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    assert _annual(api, people["employee"]) == pytest.approx(before)


def test_uneven_hours_are_split_over_the_working_days_to_the_hour_exactly(api, db, people):
    """10 hours over Thu 24, Tue 29 and Wed 30: 3.3333 + 3.3333 + 3.3334, and the ledger takes 10."""
    before = _annual(api, people["employee"])
    _, request = _approve(api, people, {**SPAN, "end_date": "2026-12-30", "total_hours": 10})
    assert _application(db, request["ledger_leave_application_id"]).hours == Decimal(10)
    assert _annual(api, people["employee"]) == pytest.approx(before - 10)


def test_the_sandbox_ledger_deducts_what_the_application_carries(db):
    ledger = SandboxPayroll(db=db)
    start = {b["leave_type_id"]: b["balance_hours"] for b in ledger.leave_balances("EMP-0042")}[ANNUAL]
    made = ledger.create_leave_application(
        employee_id="EMP-0042", leave_type_id=ANNUAL, title="Annual Leave", start_date="2026-12-24",
        end_date="2026-12-29", units={"2026-12-24": Decimal("7.6"), "2026-12-29": Decimal("7.6")},
        idempotency_key="wms-leave-s24-a")
    after = {b["leave_type_id"]: b["balance_hours"] for b in ledger.leave_balances("EMP-0042")}[ANNUAL]
    assert after == pytest.approx(start - 15.2)
    # the same key with other hours is another application: refused as Xero refuses it
    with pytest.raises(BadGateway, match="different request"):
        ledger.create_leave_application(
            employee_id="EMP-0042", leave_type_id=ANNUAL, title="Annual Leave", start_date="2026-12-24",
            end_date="2026-12-29", units={"2026-12-24": Decimal("7.6")}, idempotency_key="wms-leave-s24-a")
    # hours on a day outside the application's dates, or below zero, are refused and make nothing
    for units in ({"2026-12-30": Decimal("7.6")}, {"2026-12-24": Decimal(-1)}):
        with pytest.raises(BadGateway):
            ledger.create_leave_application(employee_id="EMP-0042", leave_type_id=ANNUAL, title="A",
                                            start_date="2026-12-24", end_date="2026-12-29", units=units)
    db.expire_all()
    assert [row.id for row in db.scalars(select(PayrollSandboxLeaveApplication)
                                         .where(PayrollSandboxLeaveApplication.employee_id == "EMP-0042"))] == [made]
