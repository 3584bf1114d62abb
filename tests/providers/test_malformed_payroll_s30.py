"""Session 30, Payroll AU answers outside their documented shape (xero-payroll-au.yaml: PayItems an object whose
`LeaveTypes` are objects with a `LeaveTypeID` GUID and a `Name`; an Employee's `LeaveBalances` objects with
`LeaveTypeID`, `LeaveName` and `NumberOfUnits` a number) are the leave ledger's 502, never the ValueError or
AttributeError the leave area does not catch (it catches the ledger's DomainErrors: a 500 on
GET /api/leave/types, GET /api/leave/balances and POST /api/leave/balances/refresh, and the refresh job ended); a
name that is no string reads "Leave", as an absent one. A pay calendar whose StartDate cannot be read leaves the
hours to Xero (xero_date answers None), as a calendar without one does. As tests/areas/leave/test_payroll_live.py."""
import pytest
import responses

from chalicelib.core.errors import BadGateway
from chalicelib.providers.payroll.live import PAYROLL
from tests.areas.leave.test_payroll_live import ANNUAL, EMPLOYEE, payroll


@pytest.mark.parametrize("pay_items, message", [
    (["LeaveTypes"], "PayItems that are not an object"),
    ({"LeaveTypes": "Annual"}, "leave types that are not a list of objects"),
    ({"LeaveTypes": ["Annual"]}, "leave types that are not a list of objects"),
    ({"LeaveTypes": [{"LeaveTypeID": {"id": ANNUAL}, "Name": "Annual Leave"}]}, "leave type id that cannot be read"),
])
@responses.activate
def test_leave_types_outside_their_shape_are_a_502(pay_items, message):
    responses.get(f"{PAYROLL}/PayItems", json={"Status": "OK", "PayItems": pay_items})
    with pytest.raises(BadGateway, match=message):
        payroll().list_leave_types()


@responses.activate
def test_a_leave_type_name_that_is_no_string_reads_leave():
    responses.get(f"{PAYROLL}/PayItems", json={"PayItems": {"LeaveTypes": [
        {"LeaveTypeID": ANNUAL, "Name": 7, "IsPaidLeave": True}, {"LeaveTypeID": "u1", "Name": "U" * 300}]}})
    assert payroll().list_leave_types() == [{"id": ANNUAL, "name": "Leave", "is_paid": True},
                                           {"id": "u1", "name": "U" * 200, "is_paid": True}]


@pytest.mark.parametrize("employees, message", [
    (["x"], "employees that are not a list of objects"),
    ([{"EmployeeID": EMPLOYEE, "LeaveBalances": "none"}], "leave balances that are not a list of objects"),
    ([{"EmployeeID": EMPLOYEE, "LeaveBalances": [{"LeaveTypeID": ANNUAL, "NumberOfUnits": "lots"}]}],
     "a leave balance that cannot be read"),
    ([{"EmployeeID": EMPLOYEE, "LeaveBalances": [{"LeaveTypeID": ANNUAL, "NumberOfUnits": {"h": 1}}]}],
     "a leave balance that cannot be read"),
    ([{"EmployeeID": EMPLOYEE, "LeaveBalances": [{"LeaveTypeID": ANNUAL, "NumberOfUnits": "NaN"}]}],
     "a leave balance that cannot be read"),
    ([{"EmployeeID": EMPLOYEE, "LeaveBalances": [{"LeaveTypeID": ANNUAL, "NumberOfUnits": 1e12}]}],
     "a leave balance that cannot be read"),
    ([{"EmployeeID": EMPLOYEE, "LeaveBalances": [{"LeaveTypeID": 5, "NumberOfUnits": 1}]}],
     "a leave type id that cannot be read"),
])
@responses.activate
def test_balances_outside_their_shape_are_a_502(employees, message):
    responses.get(f"{PAYROLL}/Employees/{EMPLOYEE}", json={"Employees": employees})
    with pytest.raises(BadGateway, match=message):
        payroll().leave_balances(EMPLOYEE)


@responses.activate
def test_balances_are_read_as_before():
    responses.get(f"{PAYROLL}/Employees/{EMPLOYEE}", json={"Employees": [{"EmployeeID": EMPLOYEE, "LeaveBalances": [
        {"LeaveName": None, "LeaveTypeID": ANNUAL, "NumberOfUnits": "7.6"}, {"LeaveTypeID": "p1"}, {"LeaveName": "x"}]}]})
    assert payroll().leave_balances(EMPLOYEE) == [
        {"leave_type_id": ANNUAL, "leave_type_name": "Leave", "balance_hours": 7.6},
        {"leave_type_id": "p1", "leave_type_name": "Leave", "balance_hours": 0.0}]
