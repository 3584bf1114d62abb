"""Session 30, a Payroll AU employee whose EmployeeID (xero-payroll-au.yaml: a GUID, 36 characters) is past the
100 characters user_mappings.ledger_id keeps is no employee, as one whose id is no string or number already was
(tests/providers/test_malformed_ledger_s30.py): its upsert was a 500 on the user-mapping sync, and the planner's
mappings with it."""
import responses

from chalicelib.providers.ledger.live import PAYROLL
from tests.providers.test_ledger_wire import TENANT


@responses.activate
def test_an_employee_id_past_its_column_is_no_employee(api, db, exec_user, set_env):
    from tests.factories import make_user

    set_env(LEDGER_MODE="live", LEDGER_ACCESS_TOKEN="AT", LEDGER_TENANT_ID=TENANT, PLANNER_MODE="off")
    ann = make_user(db, email="ann@long-employee.test", name="Ann Lee")
    bo = make_user(db, email="bo@long-employee.test", name="Bo Lee")
    db.flush()
    responses.get(f"{PAYROLL}/Employees", json={"Status": "OK", "Employees": [
        {"EmployeeID": "e" * 101, "Email": ann.email, "FirstName": "Ann", "Status": "ACTIVE"},
        {"EmployeeID": "b" * 100, "Email": bo.email, "FirstName": "Bo", "Status": "ACTIVE"}]})
    answered = api.post("/api/admin/connections/user-mappings/sync", as_=exec_user)
    assert answered.status == 200, answered.json
    mappings = {m["user_id"]: m for m in answered.json["mappings"]}
    assert mappings[ann.id]["ledger_id"] is None and mappings[bo.id]["ledger_id"] == "b" * 100
    assert answered.json["ledger_matched"] == 1
