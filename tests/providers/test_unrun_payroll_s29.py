"""Session 29, code no test ran in the leave-ledger adapters (Xero Payroll AU live, and the sandbox): an answer
without its collection or without an application id, a payroll calendar without StartDate, hours outside the pay
periods, and the sandbox's counting without units and its refusals. Shapes as tests/providers/
test_payroll_leave_units_s24.py (Xero-OpenAPI xero-payroll-au.yaml)."""
from datetime import date
from decimal import Decimal

import pytest
import responses
from sqlalchemy import select

from chalicelib.core.errors import BadGateway
from chalicelib.providers.payroll.live import PAYROLL
from chalicelib.providers.payroll.sandbox import HOURS_PER_DAY, LEAVE_TYPES
from tests.providers.test_payroll_leave_units_s24 import (ANNUAL, CALENDAR, EMPLOYEE, UNITS, _apply, _calendar,
                                                          _posted, payroll)


@responses.activate
def test_an_answer_without_its_collection_or_without_an_id_is_502():
    responses.get(f"{PAYROLL}/Employees/{EMPLOYEE}", json={"Status": "OK"})
    with pytest.raises(BadGateway, match="answered without Employees"):
        _apply()
    responses.replace(responses.GET, f"{PAYROLL}/Employees/{EMPLOYEE}", json={"Employees": []})
    responses.post(f"{PAYROLL}/LeaveApplications", json={"LeaveApplications": [{"Title": "Annual Leave"}]})
    with pytest.raises(BadGateway, match="no leave application id"):
        _apply()


@responses.activate
def test_a_payroll_calendar_without_start_date_lets_xero_count_the_hours():
    responses.get(f"{PAYROLL}/Employees/{EMPLOYEE}", json={"Employees": [{"EmployeeID": EMPLOYEE,
                                                                          "PayrollCalendarID": CALENDAR}]})
    responses.get(f"{PAYROLL}/PayrollCalendars/{CALENDAR}", json={"PayrollCalendars": [{
        "PayrollCalendarID": CALENDAR, "CalendarType": "WEEKLY"}]})
    responses.post(f"{PAYROLL}/LeaveApplications", json={"LeaveApplications": [{"LeaveApplicationID": "la-1"}]})
    assert _apply() == "la-1"
    assert "LeavePeriods" not in _posted()[0]


@responses.activate
def test_hours_on_a_day_outside_the_dates_are_refused_before_the_application():
    _calendar("WEEKLY", "2026-11-02")
    with pytest.raises(BadGateway, match="fall outside its pay periods"):
        _apply(units={**UNITS, "2027-02-01": Decimal("7.6")})
    assert not any(call.request.method == "POST" for call in responses.calls)


def test_the_sandbox_counts_weekdays_when_no_units_are_given_and_refuses_unknown_records(db):
    from chalicelib.providers.payroll.models import PayrollSandboxLeaveApplication
    from chalicelib.providers.payroll.sandbox import SandboxPayroll

    sandbox = SandboxPayroll(db=db)
    made = sandbox.create_leave_application(employee_id="emp-s29", leave_type_id=LEAVE_TYPES[0]["id"], title="A",
                                            start_date="2026-12-24", end_date="2026-12-29")  # Thu-Tue: 4 weekdays
    row = db.scalar(select(PayrollSandboxLeaveApplication).where(PayrollSandboxLeaveApplication.id == made))
    assert (row.start_date, row.end_date, Decimal(row.hours)) == (date(2026, 12, 24), date(2026, 12, 29),
                                                                   HOURS_PER_DAY * 4)
    with pytest.raises(BadGateway, match="leave type could not be found"):
        sandbox.create_leave_application(employee_id="emp-s29", leave_type_id=ANNUAL, title="A",
                                         start_date="2026-12-24", end_date="2026-12-29")
    with pytest.raises(BadGateway, match="leave application could not be found"):
        sandbox.reject_leave_application("00000000-0000-4000-8000-000000000000")
