"""The live leave ledger sends the hours the app computed (session 24, docs/decisions/leave.md): a leave application
given `units` (hours per working day) carries them as `LeavePeriods`, one per pay period of the employee's payroll
calendar that the dates overlap, each with `PayPeriodStartDate`, `PayPeriodEndDate` and `NumberOfUnits` (the sum
of its days' hours), so Xero takes those hours and not its own count (public holidays included). The pay periods
come from `GET /Employees/{EmployeeID}` (`PayrollCalendarID`) and `GET /PayrollCalendars/{PayrollCalendarID}`
(`CalendarType`, `StartDate`: the upcoming period's first day). Shapes: github.com/XeroAPI/Xero-OpenAPI
xero-payroll-au.yaml (LeaveApplication, LeavePeriod, PayrollCalendar; the POST /LeaveApplications/{id} example
carries LeavePeriods) and developer.xero.com/documentation/payroll-api/leaveapplications (LeavePeriods: optional
on create). With `responses`: no network."""
import json
import time
from datetime import UTC, datetime
from decimal import Decimal

import responses

from chalicelib.providers.ledger.live import XeroLedger
from chalicelib.providers.payroll.live import PAYROLL, XeroPayroll

TENANT = "70784a63-d24b-46a9-a4db-0e70a274b056"
EMPLOYEE = "cdfb8371-0b21-4b8a-8903-1024df6c391e"
ANNUAL = "184ea8f7-d143-46dd-bef3-0c60e1aa6fca"
CALENDAR = "78bb86b9-e1ea-47ac-b75d-f087a81931de"
MADE = {"Id": "x", "Status": "OK", "LeaveApplications": [{
    "LeaveApplicationID": "5f7097e4-51f2-46cc-921b-45bc73ea7831", "EmployeeID": EMPLOYEE, "LeaveTypeID": ANNUAL,
    "LeavePeriods": [{"PayPeriodStartDate": "/Date(1765670400000+0000)/", "PayPeriodEndDate": "/Date(1766793600000+0000)/",
                      "LeavePeriodStatus": "SCHEDULED", "NumberOfUnits": 7.6}],
    "Title": "Annual Leave", "StartDate": "/Date(1798070400000+0000)/", "EndDate": "/Date(1798502400000+0000)/"}]}
# Thu 24 - Tue 29 December 2026: 25 and 28 are public holidays, 26-27 the weekend; 15.2 hours over the two
# working days
UNITS = {"2026-12-24": Decimal("7.6"), "2026-12-29": Decimal("7.6")}


def _ms(day: str) -> str:
    stamp = datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()
    return f"/Date({int(stamp * 1000)}+0000)/"


def payroll():
    return XeroPayroll(XeroLedger(auth=None, tokens={"access_token": "AT", "expires_at": time.time() + 1000},
                                  tenant_id=TENANT))


def _calendar(calendar_type, start_date, calendar_id=CALENDAR):
    responses.get(f"{PAYROLL}/Employees/{EMPLOYEE}", json={"Employees": [{
        "EmployeeID": EMPLOYEE, "FirstName": "Eve", "Status": "ACTIVE", "PayrollCalendarID": calendar_id,
        "LeaveBalances": []}]})
    responses.get(f"{PAYROLL}/PayrollCalendars/{CALENDAR}", json={"Id": "x", "Status": "OK", "PayrollCalendars": [{
        "PayrollCalendarID": CALENDAR, "Name": "Staff", "CalendarType": calendar_type, "StartDate": _ms(start_date),
        "PaymentDate": _ms(start_date), "ReferenceDate": _ms(start_date)}]})


def _apply(units=UNITS, **kwargs):
    return payroll().create_leave_application(
        employee_id=EMPLOYEE, leave_type_id=ANNUAL, title="Annual Leave", start_date="2026-12-24",
        end_date="2026-12-29", units=units, **kwargs)


def _posted():
    [post] = [call for call in responses.calls if call.request.method == "POST"]
    return json.loads(post.request.body)


@responses.activate
def test_units_go_as_one_leave_period_per_pay_period_of_the_employees_calendar():
    # fortnightly, the upcoming period starting Mon 25 January 2027: the periods before it are 11 Jan, 28 Dec, 14 Dec
    _calendar("FORTNIGHTLY", "2027-01-25")
    responses.post(f"{PAYROLL}/LeaveApplications", json=MADE)
    assert _apply(idempotency_key="wms-leave-1-abc") == "5f7097e4-51f2-46cc-921b-45bc73ea7831"
    assert _posted() == [{
        "EmployeeID": EMPLOYEE, "LeaveTypeID": ANNUAL, "Title": "Annual Leave", "StartDate": "2026-12-24",
        "EndDate": "2026-12-29", "LeavePeriods": [
            {"PayPeriodStartDate": "2026-12-14", "PayPeriodEndDate": "2026-12-27", "NumberOfUnits": 7.6},
            {"PayPeriodStartDate": "2026-12-28", "PayPeriodEndDate": "2027-01-10", "NumberOfUnits": 7.6}]}]
    assert [call.request.path_url for call in responses.calls] == [
        f"/payroll.xro/1.0/Employees/{EMPLOYEE}", f"/payroll.xro/1.0/PayrollCalendars/{CALENDAR}",
        "/payroll.xro/1.0/LeaveApplications"]
    assert responses.calls[-1].request.headers["Idempotency-Key"] == "wms-leave-1-abc"


@responses.activate
def test_weekly_monthly_and_quarterly_periods():
    _calendar("WEEKLY", "2026-11-02")  # Mondays: 21-27 Dec, 28 Dec - 3 Jan
    responses.post(f"{PAYROLL}/LeaveApplications", json=MADE)
    _apply(units={"2026-12-24": Decimal("3.3333"), "2026-12-29": Decimal("3.3334")})
    assert _posted()[0]["LeavePeriods"] == [
        {"PayPeriodStartDate": "2026-12-21", "PayPeriodEndDate": "2026-12-27", "NumberOfUnits": 3.3333},
        {"PayPeriodStartDate": "2026-12-28", "PayPeriodEndDate": "2027-01-03", "NumberOfUnits": 3.3334}]
    responses.calls.reset()
    _calendar("MONTHLY", "2026-08-15")  # 15 Dec - 14 Jan holds the whole leave
    _apply()
    assert _posted()[0]["LeavePeriods"] == [
        {"PayPeriodStartDate": "2026-12-15", "PayPeriodEndDate": "2027-01-14", "NumberOfUnits": 15.2}]
    responses.calls.reset()
    _calendar("QUARTERLY", "2027-03-26")  # 26 Sep - 25 Dec, 26 Dec - 25 Mar
    _apply()
    assert _posted()[0]["LeavePeriods"] == [
        {"PayPeriodStartDate": "2026-09-26", "PayPeriodEndDate": "2026-12-25", "NumberOfUnits": 7.6},
        {"PayPeriodStartDate": "2026-12-26", "PayPeriodEndDate": "2027-03-25", "NumberOfUnits": 7.6}]


@responses.activate
def test_a_pay_period_with_no_working_day_carries_zero_units():
    _calendar("WEEKLY", "2026-12-28")  # 21-27 Dec holds Thu 24, 28 Dec - 3 Jan nothing
    responses.post(f"{PAYROLL}/LeaveApplications", json=MADE)
    _apply(units={"2026-12-24": Decimal("7.6")})
    assert _posted()[0]["LeavePeriods"] == [
        {"PayPeriodStartDate": "2026-12-21", "PayPeriodEndDate": "2026-12-27", "NumberOfUnits": 7.6},
        {"PayPeriodStartDate": "2026-12-28", "PayPeriodEndDate": "2027-01-03", "NumberOfUnits": 0.0}]


@responses.activate
def test_periods_the_adapter_cannot_know_leave_the_hours_to_xero():
    # twice-monthly periods hang on Xero's ReferenceDate, whose rule is undocumented; an employee without a pay
    # calendar has none: the application goes without LeavePeriods (Xero counts), applied rather than refused
    _calendar("TWICEMONTHLY", "2026-12-16")
    responses.post(f"{PAYROLL}/LeaveApplications", json=MADE)
    _apply()
    assert "LeavePeriods" not in _posted()[0]
    responses.calls.reset()
    responses.replace(responses.GET, f"{PAYROLL}/Employees/{EMPLOYEE}", json={"Employees": [{
        "EmployeeID": EMPLOYEE, "LeaveBalances": []}]})
    _apply()
    assert "LeavePeriods" not in _posted()[0]
    assert [call.request.method for call in responses.calls] == ["GET", "POST"]  # no calendar read without an id


@responses.activate
def test_without_units_the_application_is_sent_as_before():
    responses.post(f"{PAYROLL}/LeaveApplications", json=MADE)
    _apply(units=None)
    assert "LeavePeriods" not in _posted()[0] and len(responses.calls) == 1
