"""The live leave ledger (Xero Payroll AU) with `responses`, against the documented request and answer shapes:
PayItems' leave types, an employee's leave balances, a leave application created and rejected, through the
ledger's transport (tenant header, token refresh, 429 with Retry-After, Xero's message on errors)."""
import json
import time

import pytest
import responses

from chalicelib.core.errors import BadGateway, ServiceUnavailable
from chalicelib.providers import http as provider_http
from chalicelib.providers.ledger.live import TOKEN_URL, XeroAuth, XeroLedger
from chalicelib.providers.payroll.live import PAYROLL, XeroPayroll

TENANT = "70784a63-d24b-46a9-a4db-0e70a274b056"
EMPLOYEE = "cdfb8371-0b21-4b8a-8903-1024df6c391e"
ANNUAL = "184ea8f7-d143-46dd-bef3-0c60e1aa6fca"


@pytest.fixture
def waits(monkeypatch):
    slept = []
    monkeypatch.setattr(provider_http, "sleep", slept.append)
    return slept


def payroll(expires_in=1000):
    auth = XeroAuth(client_id="CLIENT", client_secret="SECRET", redirect_uri="https://wms.example/cb")
    return XeroPayroll(XeroLedger(auth=auth, tokens={"access_token": "AT", "refresh_token": "RT",
                                                     "expires_at": time.time() + expires_in}, tenant_id=TENANT))


@responses.activate
def test_leave_types_from_pay_items():
    responses.get(f"{PAYROLL}/PayItems", json={"Id": "x", "Status": "OK", "PayItems": {
        "EarningsRates": [{"EarningsRateID": "e1", "Name": "Ordinary Hours"}],
        "LeaveTypes": [
            {"LeaveTypeID": ANNUAL, "Name": "Annual Leave", "TypeOfUnits": "Hours", "IsPaidLeave": True,
             "ShowOnPayslip": True, "NormalEntitlement": 152.0, "CurrentRecord": True},
            {"LeaveTypeID": "u1", "Name": "Unpaid Leave", "TypeOfUnits": "Hours", "IsPaidLeave": False},
            {"LeaveTypeID": "old", "Name": "Retired", "IsPaidLeave": True, "CurrentRecord": False}]}})
    assert payroll().list_leave_types() == [{"id": ANNUAL, "name": "Annual Leave", "is_paid": True},
                                           {"id": "u1", "name": "Unpaid Leave", "is_paid": False}]
    request = responses.calls[0].request
    assert request.headers["Xero-tenant-id"] == TENANT and request.headers["Authorization"] == "Bearer AT"
    assert request.headers["Accept"] == "application/json"


@responses.activate
def test_balances_of_an_employee():
    responses.get(f"{PAYROLL}/Employees/{EMPLOYEE}", json={"Employees": [{
        "EmployeeID": EMPLOYEE, "FirstName": "Eve", "LeaveBalances": [
            {"LeaveName": "Annual Leave", "LeaveTypeID": ANNUAL, "NumberOfUnits": 81.2602, "TypeOfUnits": "Hours"},
            {"LeaveName": "Personal/Carer's Leave", "LeaveTypeID": "p1", "NumberOfUnits": 0, "TypeOfUnits": "Hours"}]}]})
    assert payroll().leave_balances(EMPLOYEE) == [
        {"leave_type_id": ANNUAL, "leave_type_name": "Annual Leave", "balance_hours": 81.2602},
        {"leave_type_id": "p1", "leave_type_name": "Personal/Carer's Leave", "balance_hours": 0.0}]


@responses.activate
def test_leave_application_created_and_rejected():
    responses.post(f"{PAYROLL}/LeaveApplications", json={"Id": "x", "Status": "OK", "LeaveApplications": [{
        "LeaveApplicationID": "5f7097e4-51f2-46cc-921b-45bc73ea7831", "EmployeeID": EMPLOYEE, "LeaveTypeID": ANNUAL,
        "LeavePeriods": [{"LeavePeriodStatus": "SCHEDULED", "NumberOfUnits": 7.6}], "Title": "Annual Leave",
        "StartDate": "/Date(1572559200000+0000)/", "EndDate": "/Date(1572645600000+0000)/"}]})
    made = payroll().create_leave_application(employee_id=EMPLOYEE, leave_type_id=ANNUAL, title="Annual Leave",
                                              start_date="2026-12-01", end_date="2026-12-03", description="Trip")
    assert made == "5f7097e4-51f2-46cc-921b-45bc73ea7831"
    assert json.loads(responses.calls[0].request.body) == [{
        "EmployeeID": EMPLOYEE, "LeaveTypeID": ANNUAL, "Title": "Annual Leave", "StartDate": "2026-12-01",
        "EndDate": "2026-12-03", "Description": "Trip"}]
    responses.post(f"{PAYROLL}/LeaveApplications/{made}/reject", json={"LeaveApplications": [{
        "LeaveApplicationID": made, "LeavePeriods": [{"LeavePeriodStatus": "REJECTED"}]}]})
    payroll().reject_leave_application(made)
    assert responses.calls[-1].request.url.endswith(f"/LeaveApplications/{made}/reject")


@responses.activate
def test_ids_in_the_path_are_percent_encoded_as_one_segment():
    """An employee id is typed by an executive (connections' user mappings): sent raw, this one reached GET
    https://api.xero.com/api.xro/2.0/Contacts?where=1&x= with the organisation's token. Each id is one path segment,
    percent-encoded (providers.http.segment), for /Employees/{EmployeeID} and
    /LeaveApplications/{LeaveApplicationID}/reject (xero-payroll-au.yaml paths)."""
    odd = "../../../api.xro/2.0/Contacts?where=1&x="
    encoded = "..%2F..%2F..%2Fapi.xro%2F2.0%2FContacts%3Fwhere%3D1%26x%3D"
    responses.get(f"{PAYROLL}/Employees/{encoded}", json={"Employees": [{"EmployeeID": odd, "LeaveBalances": []}]})
    responses.post(f"{PAYROLL}/LeaveApplications/{encoded}/reject", json={"LeaveApplications": []})
    assert payroll().leave_balances(odd) == []
    payroll().reject_leave_application(odd)
    assert [call.request.path_url for call in responses.calls] == [
        f"/payroll.xro/1.0/Employees/{encoded}", f"/payroll.xro/1.0/LeaveApplications/{encoded}/reject"]


@responses.activate
def test_errors_rate_limits_and_refresh(waits):
    responses.post(f"{PAYROLL}/LeaveApplications", status=400, json={
        "Type": "ValidationException", "Elements": [{"ValidationErrors": [
            {"Message": "The employee does not have enough leave balance"}]}]})
    with pytest.raises(BadGateway, match="enough leave balance"):
        payroll().create_leave_application(employee_id=EMPLOYEE, leave_type_id=ANNUAL, title="A",
                                           start_date="2026-12-01", end_date="2026-12-01")
    responses.get(f"{PAYROLL}/PayItems", status=429, headers={"Retry-After": "2"})
    responses.get(f"{PAYROLL}/PayItems", json={"PayItems": {"LeaveTypes": []}})
    assert payroll().list_leave_types() == [] and waits == [2.0]
    responses.get(f"{PAYROLL}/Employees/{EMPLOYEE}", status=429, headers={"Retry-After": "3600"})
    with pytest.raises(ServiceUnavailable, match="retry after 3600"):
        payroll().leave_balances(EMPLOYEE)
    # an expired access token is refreshed before the call
    responses.post(TOKEN_URL, json={"access_token": "AT2", "refresh_token": "RT2", "expires_in": 1800})
    responses.get(f"{PAYROLL}/PayItems", json={"PayItems": {"LeaveTypes": []}})
    payroll(expires_in=-5).list_leave_types()
    assert responses.calls[-1].request.headers["Authorization"] == "Bearer AT2"
    responses.get(f"{PAYROLL}/Employees/none", json={"Employees": []})
    with pytest.raises(BadGateway, match="does not know"):
        payroll().leave_balances("none")
