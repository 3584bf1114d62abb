"""Session 30, Payroll AU employees outside their documented shape (xero-payroll-au.yaml, Employee: `EmployeeID` a
GUID string, `Email`, `FirstName`, `LastName` strings): an e-mail or a name that is no string is none, an id that is
no string is no employee. `.strip()` on a number, or the name's join, raised: a 500 on the user-mapping sync route
(as tests/providers/test_malformed_ledger_s29.py)."""
import responses

from chalicelib.providers.ledger.live import PAYROLL
from tests.providers.test_ledger_wire import TENANT, ledger


@responses.activate
def test_the_mapping_sync_reads_employees_whose_fields_are_no_strings(api, exec_user, set_env):
    set_env(LEDGER_MODE="live", LEDGER_ACCESS_TOKEN="AT", LEDGER_TENANT_ID=TENANT, PLANNER_MODE="off")
    responses.get(f"{PAYROLL}/Employees", json={"Status": "OK", "Employees": [
        {"EmployeeID": "b34e89ff-770d-4099-b7e5-f968767118bc", "Email": 5, "FirstName": "Jack", "Status": "ACTIVE"},
        {"EmployeeID": "cdfb8371-0b21-4b8a-8903-1024df6c391e", "Email": exec_user.email.upper(), "FirstName": 3,
         "LastName": ["x"], "Status": "ACTIVE"},
        {"EmployeeID": {"id": 1}, "Email": "nobody@example.test", "Status": "ACTIVE"}]})
    answered = api.post("/api/admin/connections/user-mappings/sync", as_=exec_user)
    assert answered.status == 200, answered.json
    assert answered.json["ledger_matched"] == 1
    assert not [line for line in answered.json["errors"] if line.startswith("ledger")], answered.json


@responses.activate
def test_employees_are_read_as_before():
    responses.get(f"{PAYROLL}/Employees", json={"Employees": [
        {"EmployeeID": "b34e89ff", "Email": " Jack@Example.test ", "FirstName": "Jack", "LastName": "Black"},
        {"EmployeeID": "c1", "Email": "", "FirstName": "Ann", "Status": "ACTIVE"},
        {"EmployeeID": "t1", "Email": "t@example.test", "Status": "TERMINATED"}, {"Email": "none@example.test"}]})
    assert ledger().list_employees() == [{"id": "b34e89ff", "email": "jack@example.test", "name": "Jack Black"},
                                         {"id": "c1", "email": None, "name": "Ann"}]
