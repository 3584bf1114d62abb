"""Session 29, Xero answers outside their documented shape (Accounting GET /Invoices `{"Invoices": [...]}`,
Payroll AU GET /Employees `{"Employees": [...]}`, a validation error's `Elements[].ValidationErrors[].Message`,
https://github.com/XeroAPI/Xero-OpenAPI) are the ledger's 502, never a 500: `(response.json() or {}).get(...)`
raised ValueError on a body that is not JSON and AttributeError on a list; a record that is no object failed
`.get`. Through the user-mapping sync route (as tests/providers/test_ledger_wire.py) and the adapter."""
import pytest
import requests
import responses

from chalicelib.core.errors import BadGateway
from chalicelib.providers.ledger.live import ACCOUNTING, PAYROLL, xero_message
from tests.providers.test_ledger_wire import TENANT, ledger

INVOICE = "046d8a6d-1ae1-4b4d-9340-5601bdf41b87"


@pytest.mark.parametrize("answer, error", [
    ({"json": [{"EmployeeID": "b34e89ff"}]}, "The accounting ledger answered a body that is not a JSON object"),
    ({"body": "<html>OK</html>"}, "The accounting ledger answered a body that is not JSON"),
    ({"json": {"Status": "OK", "Employees": ["b34e89ff"]}},
     "The accounting ledger answered employees that are not a list of objects"),
    ({"json": {"Status": "OK", "Employees": "none"}},
     "The accounting ledger answered employees that are not a list of objects"),
])
@responses.activate
def test_the_mapping_sync_reports_an_employees_answer_it_cannot_read(api, exec_user, set_env, answer, error):
    set_env(LEDGER_MODE="live", LEDGER_ACCESS_TOKEN="AT", LEDGER_TENANT_ID=TENANT, PLANNER_MODE="off")
    responses.get(f"{PAYROLL}/Employees", **answer)
    answered = api.post("/api/admin/connections/user-mappings/sync", as_=exec_user)
    assert answered.status == 200, answered.json  # the ledger's failure reported, the sync answered
    assert any(line.startswith(f"ledger: {error}") for line in answered.json["errors"]), answered.json


@pytest.mark.parametrize("answer, error", [
    ({"json": [{"InvoiceID": INVOICE}]}, "not a JSON object"), ({"body": "OK"}, "not JSON"),
    ({"json": {"Invoices": [INVOICE]}}, "invoices that are not a list of objects"),
])
@responses.activate
def test_an_invoices_answer_that_cannot_be_read_is_502(answer, error):
    responses.get(f"{ACCOUNTING}/Invoices", **answer)
    with pytest.raises(BadGateway, match=error):
        ledger().get_invoices([INVOICE])


def test_xero_message_of_validation_errors_that_are_not_objects():
    response = requests.Response()
    response.status_code = 400
    response._content = (b'{"Type": "ValidationException", "Message": "A validation exception occurred", '
                         b'"Elements": ["x", {"ValidationErrors": ["y", {"Message": "Email is invalid"}]},'
                         b' {"ValidationErrors": 3}]}')
    assert xero_message(response) == "Email is invalid"
    response._content = b'{"Message": "A validation exception occurred", "Elements": "x"}'
    assert xero_message(response) == "A validation exception occurred"
