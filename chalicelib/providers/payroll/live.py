"""Xero Payroll AU leave through the ledger's authenticated transport (`XeroLedger._call`: bearer token with
refresh and rotation, `Xero-tenant-id`, 429 with Retry-After, errors as 502 with Xero's message, timeouts 504).

- `GET  /payroll.xro/1.0/PayItems`: `{PayItems: {LeaveTypes: [{LeaveTypeID, Name, IsPaidLeave, ...}]}}`
- `GET  /payroll.xro/1.0/Employees/{EmployeeID}`: `{Employees: [{LeaveBalances: [{LeaveName, LeaveTypeID,
  NumberOfUnits, TypeOfUnits}]}]}` (units are hours for AU leave)
- `POST /payroll.xro/1.0/LeaveApplications` with `[{EmployeeID, LeaveTypeID, Title, StartDate, EndDate,
  Description}]`: `{LeaveApplications: [{LeaveApplicationID, ...}]}`
- `POST /payroll.xro/1.0/LeaveApplications/{LeaveApplicationID}/reject`: withdraws it

Wire choices, checked against github.com/XeroAPI/Xero-OpenAPI xero-payroll-au.yaml: every call above is
authorised by `payroll.employees` (Employees, LeaveApplications and their reject) or `payroll.settings(.read)`
(PayItems), the scopes the ledger's consent asks for; `StartDate` / `EndDate` are sent as YYYY-MM-DD (the
documented format of those fields; Xero answers them as `/Date(ms+0000)/`); `Title` is cut to 50 characters
and `Description` to 200 (their documented maximum lengths); reject has no body and applies to a REQUESTED or
SCHEDULED application (an application made through POST /LeaveApplications is SCHEDULED). A leave application
given an idempotency key sends it as `Idempotency-Key` (the ledger's transport, on every attempt of the call).
An id placed in a path (`{EmployeeID}`, `{LeaveApplicationID}`) is percent-encoded as one segment
(`providers.http.segment`): an employee id is typed by an executive (the connections area's user mappings), and
`../../../api.xro/2.0/Contacts?where=1&x=` sent raw reached Accounting's Contacts with the organisation's token.
"""
from __future__ import annotations

from chalicelib.core.errors import BadGateway
from chalicelib.providers.http import segment

PAYROLL = "https://api.xero.com/payroll.xro/1.0"


def _body(response, key: str):
    try:
        return response.json()[key]
    except (ValueError, KeyError, TypeError) as exc:
        raise BadGateway(f"The leave ledger answered without {key}") from exc


class XeroPayroll:
    def __init__(self, ledger) -> None:
        self.ledger = ledger  # a chalicelib.providers.ledger.live.XeroLedger

    def _call(self, method: str, path: str, **kwargs):
        return self.ledger._call(method, f"{PAYROLL}/{path}", **kwargs)

    def list_leave_types(self) -> list[dict]:
        items = _body(self._call("GET", "PayItems"), "PayItems") or {}
        return [{"id": item["LeaveTypeID"], "name": item.get("Name") or "Leave",
                 "is_paid": bool(item.get("IsPaidLeave", True))}
                for item in items.get("LeaveTypes") or [] if item.get("LeaveTypeID")
                and item.get("CurrentRecord", True) is not False]

    def leave_balances(self, employee_id: str) -> list[dict]:
        employees = _body(self._call("GET", f"Employees/{segment(employee_id)}"), "Employees") or []
        if not employees:
            raise BadGateway("The leave ledger does not know this employee")
        return [{"leave_type_id": balance["LeaveTypeID"], "leave_type_name": balance.get("LeaveName") or "Leave",
                 "balance_hours": float(balance.get("NumberOfUnits") or 0)}
                for balance in employees[0].get("LeaveBalances") or [] if balance.get("LeaveTypeID")]

    def create_leave_application(self, *, employee_id: str, leave_type_id: str, title: str, start_date: str,
                                 end_date: str, description: str | None = None,
                                 idempotency_key: str | None = None) -> str:
        application = {"EmployeeID": employee_id, "LeaveTypeID": leave_type_id, "Title": title[:50],
                       "StartDate": start_date, "EndDate": end_date}
        if description:
            application["Description"] = description[:200]
        created = _body(self._call("POST", "LeaveApplications", json=[application], idempotency_key=idempotency_key),
                        "LeaveApplications") or []
        if not created or not created[0].get("LeaveApplicationID"):
            raise BadGateway("The leave ledger answered no leave application id")
        return created[0]["LeaveApplicationID"]

    def reject_leave_application(self, leave_application_id: str) -> None:
        self._call("POST", f"LeaveApplications/{segment(leave_application_id)}/reject")
