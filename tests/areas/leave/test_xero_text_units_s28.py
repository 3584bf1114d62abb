"""Xero Payroll AU's LeaveApplication Title (50) and Description (200) are cut as Xero counts a length, in UTF-16 code
units (session 28's provider-limits audit): they were cut to 50 and 200 Python characters, so a note with an emoji in
its first 200 characters went longer than 200 and Xero could refuse the application, the approved leave never
reaching payroll and every retry sending the same body. Through HTTP, the ledger live, Xero answered by `responses`."""
import json

import responses

from chalicelib.providers.payroll.live import PAYROLL
from tests.areas.leave.factories import mapped_team

TENANT = "70784a63-d24b-46a9-a4db-0e70a274b056"
ANNUAL = "184ea8f7-d143-46dd-bef3-0c60e1aa6fca"


def _utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@responses.activate
def test_the_leave_application_description_sent_fits_xeros_200_units(api, db, set_env):
    set_env(LEDGER_MODE="live", LEDGER_ACCESS_TOKEN="AT", LEDGER_TENANT_ID=TENANT)
    people = mapped_team(db, name="Eve Employee")
    responses.get(f"{PAYROLL}/PayItems", json={"PayItems": {"LeaveTypes": [
        {"LeaveTypeID": ANNUAL, "Name": "Annual Leave", "IsPaidLeave": True}]}})
    responses.get(f"{PAYROLL}/Employees/EMP-0001", json={"Employees": [{
        "EmployeeID": "EMP-0001", "LeaveBalances": [{"LeaveName": "Annual Leave", "LeaveTypeID": ANNUAL,
                                                     "NumberOfUnits": 152.0, "TypeOfUnits": "Hours"}]}]})
    responses.post(f"{PAYROLL}/LeaveApplications", json={"LeaveApplications": [{
        "LeaveApplicationID": "5f7097e4-51f2-46cc-921b-45bc73ea7831", "EmployeeID": "EMP-0001"}]})
    notes = ("🌴🏖️ Family trip to Bali for my sister's wedding. I will be reachable on my mobile for anything urgent; "
             "Sam covers the Acme retainer and the weekly report goes out on Friday as usual. Thanks so much, team!")
    assert len(notes) > 200
    made = api.post("/api/leave/requests", as_=people["employee"], json={
        "leave_type_id": ANNUAL, "leave_type_name": "Annual Leave", "start_date": "2026-12-07",
        "end_date": "2026-12-11", "notes": notes})
    assert made.status == 201, made
    path = f"/api/leave/requests/{made.json['request']['id']}"
    assert api.post(f"{path}/approve", as_=people["exec"]).status == 200
    api.post(f"{path}/approve", as_=people["exec"])
    sent = [json.loads(c.request.body) for c in responses.calls
            if c.request.method == "POST" and c.request.url == f"{PAYROLL}/LeaveApplications"]
    assert sent, [c.request.url for c in responses.calls]
    description = sent[0][0]["Description"]
    assert _utf16_units(description) <= 200, f"sent Xero a Description of {_utf16_units(description)} UTF-16 units"
