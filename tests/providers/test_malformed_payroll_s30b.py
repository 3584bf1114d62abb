"""Session 30, Xero Payroll AU answers read for a leave application (xero-payroll-au.yaml: `Employees` a list of
Employee objects whose `PayrollCalendarID` is a GUID string, `PayrollCalendars` a list of PayrollCalendar objects,
`LeaveApplications` a list of LeaveApplication objects whose `LeaveApplicationID` is a GUID string) outside their
shape are the leave ledger's 502, named, never the AttributeError the leave job recorded as "Unexpected error", nor
an id the run could not keep (past leave_requests' 200 characters, or an object: the run's write failed and every
outcome of the run was lost). Through the approval's run and the retry route, the ledger live, Xero answered by
`responses` (as tests/areas/leave/test_xero_text_units_s28.py)."""
import pytest
import responses

from chalicelib.providers.payroll.live import PAYROLL
from tests.areas.leave.factories import ANNUAL_LEAVE, approve_leave, mapped_team
from tests.providers.test_payroll_leave_units_s24 import CALENDAR, MADE, TENANT, _ms

EMPLOYEE = "EMP-0001"  # mapped_team's ledger id
LEAVE_TYPES = {"PayItems": {"LeaveTypes": [{"LeaveTypeID": ANNUAL_LEAVE["leave_type_id"], "Name": "Annual Leave"}]}}
GOOD_EMPLOYEE = {"EmployeeID": EMPLOYEE, "PayrollCalendarID": CALENDAR, "LeaveBalances": []}
GOOD_CALENDAR = {"PayrollCalendarID": CALENDAR, "CalendarType": "WEEKLY", "StartDate": _ms("2026-11-30")}
APPLICATION = MADE["LeaveApplications"][0]


def _approve(api, db, set_env, *, employees, calendars=(GOOD_CALENDAR,), made=MADE):
    set_env(LEDGER_MODE="live", LEDGER_ACCESS_TOKEN="AT", LEDGER_TENANT_ID=TENANT, PLANNER_MODE="off",
            CALENDAR_MODE="off", CHAT_MODE="off")
    people = mapped_team(db, name="Eve Employee")
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.get(f"{PAYROLL}/PayItems", json=LEAVE_TYPES)
        mock.get(f"{PAYROLL}/Employees/{EMPLOYEE}", json={"Employees": employees})
        mock.get(f"{PAYROLL}/PayrollCalendars/{CALENDAR}", json={"PayrollCalendars": list(calendars)})
        mock.post(f"{PAYROLL}/LeaveApplications", json=made)
        _request, url, approved = approve_leave(api, people)
        assert approved.status == 200, approved.json
        return api.get(url, as_=people["exec"]).json["request"]


@pytest.mark.parametrize("employees, calendars, message", [
    (["Eve"], [GOOD_CALENDAR], "employees that are not a list of objects"),
    ({"EmployeeID": EMPLOYEE}, [GOOD_CALENDAR], "employees that are not a list of objects"),
    ([{**GOOD_EMPLOYEE, "PayrollCalendarID": {"id": CALENDAR}}], [GOOD_CALENDAR],
     "a payroll calendar id that cannot be read"),
    ([GOOD_EMPLOYEE], ["WEEKLY"], "payroll calendars that are not a list of objects"),
    ([GOOD_EMPLOYEE], [[GOOD_CALENDAR]], "payroll calendars that are not a list of objects"),
])
def test_a_pay_calendar_outside_its_shape_is_the_ledgers_error(api, db, set_env, employees, calendars, message):
    request = _approve(api, db, set_env, employees=employees, calendars=calendars)
    assert request["ledger_leave_application_id"] is None
    assert request["integration_errors"]["ledger"] == f"The leave ledger answered {message}", request


@pytest.mark.parametrize("made, message", [
    ({"LeaveApplications": ["5f7097e4"]}, "leave applications that are not a list of objects"),
    ({"LeaveApplications": {"LeaveApplicationID": "5f7097e4"}}, "leave applications that are not a list of objects"),
    ({"LeaveApplications": [{**APPLICATION, "LeaveApplicationID": "5" * 201}]},
     "a leave application id that cannot be read"),
    ({"LeaveApplications": [{**APPLICATION, "LeaveApplicationID": {"id": "5f7097e4"}}]},
     "a leave application id that cannot be read"),
])
def test_a_leave_application_outside_its_shape_is_the_ledgers_error(api, db, set_env, made, message):
    request = _approve(api, db, set_env, employees=[GOOD_EMPLOYEE], made=made)
    assert request["ledger_leave_application_id"] is None
    assert request["integration_errors"]["ledger"] == f"The leave ledger answered {message}", request


def test_a_leave_application_is_made_as_before(api, db, set_env):
    request = _approve(api, db, set_env, employees=[GOOD_EMPLOYEE])
    assert request["ledger_leave_application_id"] == APPLICATION["LeaveApplicationID"], request
