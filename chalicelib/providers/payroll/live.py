"""Xero Payroll AU leave through the ledger's authenticated transport (`XeroLedger._call`: bearer token with
refresh and rotation, `Xero-tenant-id`, 429 with Retry-After, errors as 502 with Xero's message, timeouts 504).

- `GET  /payroll.xro/1.0/PayItems`: `{PayItems: {LeaveTypes: [{LeaveTypeID, Name, IsPaidLeave, ...}]}}`
- `GET  /payroll.xro/1.0/Employees/{EmployeeID}`: `{Employees: [{LeaveBalances: [{LeaveName, LeaveTypeID,
  NumberOfUnits, TypeOfUnits}]}]}` (units are hours for AU leave)
- `POST /payroll.xro/1.0/LeaveApplications` with `[{EmployeeID, LeaveTypeID, Title, StartDate, EndDate,
  Description}]`: `{LeaveApplications: [{LeaveApplicationID, ...}]}`
- `POST /payroll.xro/1.0/LeaveApplications/{LeaveApplicationID}/reject`: withdraws it
- `GET  /payroll.xro/1.0/LeaveApplications/{LeaveApplicationID}`: `{LeaveApplications: [{LeaveApplicationID,
  LeavePeriods: [{PayPeriodStartDate, PayPeriodEndDate, LeavePeriodStatus, NumberOfUnits}], ...}]}`: its state

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

The state of one application (session 32, docs/decisions/leave.md, "A rejection whose answer was lost"), what
`leave_application_status` relies on, from xero-payroll-au.yaml (XeroAPI/Xero-OpenAPI, operation
getLeaveApplication, `payroll.employees(.read)`) and the Xero-OpenAPI 2.38.0 release notes (pull request 559):
a LeaveApplication carries no status of its own; each of its `LeavePeriods` has a `LeavePeriodStatus`, one of
SCHEDULED (the default: an application made through POST /LeaveApplications), PROCESSED (its pay run posted),
REQUESTED (a leave request not yet approved) and REJECTED (a value it does not list, as its enums were open for a
time, is read as answered, never as REJECTED). `POST .../reject` takes a REQUESTED or SCHEDULED application only, and its 200 answers the application
with its periods REJECTED (the document's example); for one in another state (a REJECTED one: a second reject) it
documents nothing beyond its 400 `APIException`, which the transport makes the leave ledger's 502 as any refusal.
`GET /LeaveApplications/v2` lists REQUESTED and REJECTED applications with the others (the organisation's, by page,
no filter by id); `GET /LeaveApplications/{LeaveApplicationID}` answers the one application in the same
`LeaveApplications` list shape, and is the read used here. So an application is read as REJECTED when it has periods
and every one is REJECTED; else as the furthest state any period reached (PROCESSED, then SCHEDULED, then REQUESTED),
or the first state the document does not list, as answered. The id of the answer is not compared with the one asked:
Xero gives an approved leave request a new LeaveApplicationID and, once it is rejected, answers the request's
original one (XeroAPI/Xero-OpenAPI issue 590). An application Xero answers none of, no periods of, or a period
without a readable state is the leave ledger's 502, never taken as rejected; so is an id Xero no longer knows (the
transport makes its 404 a 502 as any refusal, with no status the adapter could tell apart).

The hours of an application (session 24, docs/decisions/leave.md): given `units` (the app's hours per working
day), the application carries `LeavePeriods` (xero-payroll-au.yaml LeaveApplication.LeavePeriods, LeavePeriod
{PayPeriodStartDate, PayPeriodEndDate, NumberOfUnits}; optional on create, developer.xero.com payroll-api
leaveapplications), so Xero takes those hours and not its own count (which knows nothing of the calendar area's
public holidays). A LeavePeriod is a pay period of the employee's payroll calendar, which the app does not hold:
the adapter reads it first, `GET /Employees/{EmployeeID}` (`PayrollCalendarID`) then
`GET /PayrollCalendars/{PayrollCalendarID}` (`CalendarType`, `StartDate`: the first day of the upcoming period;
`payroll.settings(.read)`, already consented), and sends one LeavePeriod for each pay period the dates overlap,
with the sum of its days' hours (0 for a period with none; NumberOfUnits to 4 places, as Xero keeps it). WEEKLY,
FORTNIGHTLY and FOURWEEKLY periods step 7, 14 and 28 days from StartDate; MONTHLY and QUARTERLY step 1 and 3
months from StartDate's day (the month's last day when it is shorter). TWICEMONTHLY periods hang on
`ReferenceDate` by a rule Xero does not document: for such an employee (or one without a payroll calendar, or a
calendar answered without its StartDate) the application goes without `LeavePeriods`, as before session 24, and
Xero counts its own hours: the leave is applied rather than refused (the integration would fail and the leave
be typed into Xero by hand, whose count is the same).
"""
from __future__ import annotations

import math
from calendar import monthrange
from datetime import date, timedelta
from decimal import Decimal

from chalicelib.core.errors import BadGateway
from chalicelib.providers.http import objects, read_id, read_json, segment, utf16_cut
from chalicelib.providers.ledger.live import xero_date

PAYROLL = "https://api.xero.com/payroll.xro/1.0"


def _body(response, key: str):
    try:
        return read_json(response)[key]  # no NUL, no lone surrogate (session 30)
    except (ValueError, KeyError, TypeError) as exc:
        raise BadGateway(f"The leave ledger answered without {key}") from exc


NAME = "The leave ledger"
MAX_HOURS = 10 ** 8  # the balances' column is Numeric(10, 2)
APPLICATION_ID_MAX = 200  # leave_requests.ledger_leave_application_id


def _id(value) -> str:
    """A leave type's id (a GUID string); one that is no string, or longer than the leave tables' 100 characters, is
    the leave ledger's 502."""
    return read_id(value, 100, "The leave ledger answered a leave type id that cannot be read")


def _name(value) -> str:
    """A leave type's name; one that is no string (or none) reads "Leave"; cut to the tables' 200 characters."""
    return value[:200] if isinstance(value, str) and value else "Leave"


def _units(value) -> float:
    """A balance's NumberOfUnits (a JSON number; absent is 0); anything else is the leave ledger's 502."""
    if value is None or value == "":
        return 0.0
    try:
        if isinstance(value, bool):
            raise ValueError
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number) or abs(number) >= MAX_HOURS:
        raise BadGateway("The leave ledger answered a leave balance that cannot be read")
    return number


REJECTED = "REJECTED"
FURTHEST_FIRST = ("PROCESSED", "SCHEDULED", "REQUESTED")  # LeavePeriodStatus, an application's furthest state first
STATUS_MAX = 20  # a state the document does not list is answered at most this long


STEP_DAYS = {"WEEKLY": 7, "FORTNIGHTLY": 14, "FOURWEEKLY": 28}
STEP_MONTHS = {"MONTHLY": 1, "QUARTERLY": 3}
UNIT_PLACES = Decimal("0.0001")


def _months_on(anchor: date, months: int) -> date:
    """`anchor` moved by `months` (either way), on its day or the month's last day when that is shorter."""
    year, month = divmod(anchor.year * 12 + anchor.month - 1 + months, 12)
    return date(year, month + 1, min(anchor.day, monthrange(year, month + 1)[1]))


def pay_periods(calendar_type: str, anchor: date, start: date, end: date) -> list[tuple[date, date]] | None:
    """The pay periods `(first, last)` of a payroll calendar (its type, and `anchor`: the first day of one of its
    periods) that overlap `start`..`end`, in order; None for a type whose periods cannot be told."""
    if calendar_type in STEP_DAYS:
        step = STEP_DAYS[calendar_type]
        first = anchor + timedelta(days=(start - anchor).days // step * step)
        periods = []
        while first <= end:
            periods.append((first, first + timedelta(days=step - 1)))
            first += timedelta(days=step)
        return periods
    if calendar_type in STEP_MONTHS:
        step = STEP_MONTHS[calendar_type]
        k = ((start.year - anchor.year) * 12 + start.month - anchor.month) // step - 1
        while _months_on(anchor, (k + 1) * step) <= start:
            k += 1
        periods = []
        while _months_on(anchor, k * step) <= end:
            periods.append((_months_on(anchor, k * step), _months_on(anchor, (k + 1) * step) - timedelta(days=1)))
            k += 1
        return periods
    return None


class XeroPayroll:
    def __init__(self, ledger) -> None:
        self.ledger = ledger  # a chalicelib.providers.ledger.live.XeroLedger

    def _call(self, method: str, path: str, **kwargs):
        return self.ledger._call(method, f"{PAYROLL}/{path}", **kwargs)

    def list_leave_types(self) -> list[dict]:
        """PayItems' LeaveTypes; PayItems that is no object, LeaveTypes no list of objects, or an id that is no
        string is the leave ledger's 502; a name that is no string reads "Leave", as an absent one (session 30: each
        was an AttributeError, or the cache's write failed, a 500 on the route and the refresh job)."""
        items = _body(self._call("GET", "PayItems"), "PayItems") or {}
        if not isinstance(items, dict):
            raise BadGateway("The leave ledger answered PayItems that are not an object")
        leave_types = objects(items.get("LeaveTypes"), NAME, "leave types")
        return [{"id": _id(item["LeaveTypeID"]), "name": _name(item.get("Name")),
                 "is_paid": bool(item.get("IsPaidLeave", True))}
                for item in leave_types if item.get("LeaveTypeID") and item.get("CurrentRecord", True) is not False]

    def leave_balances(self, employee_id: str) -> list[dict]:
        """The employee's LeaveBalances; an employee or balances outside Employee's documented shape, or a
        `NumberOfUnits` that is no finite number, is the leave ledger's 502 (session 30: float("abc"), `.get` on a
        string: a 500 on the balances routes, and the refresh job ended)."""
        employees = _body(self._call("GET", f"Employees/{segment(employee_id)}"), "Employees") or []
        employees = objects(employees, NAME, "employees")
        if not employees:
            raise BadGateway("The leave ledger does not know this employee")
        return [{"leave_type_id": _id(balance["LeaveTypeID"]), "leave_type_name": _name(balance.get("LeaveName")),
                 "balance_hours": _units(balance.get("NumberOfUnits"))}
                for balance in objects(employees[0].get("LeaveBalances"), NAME, "leave balances")
                if balance.get("LeaveTypeID")]

    def create_leave_application(self, *, employee_id: str, leave_type_id: str, title: str, start_date: str,
                                 end_date: str, description: str | None = None,
                                 units: dict[str, Decimal] | None = None,
                                 idempotency_key: str | None = None) -> str:
        application = {"EmployeeID": employee_id, "LeaveTypeID": leave_type_id, "Title": utf16_cut(title, 50),
                       "StartDate": start_date, "EndDate": end_date}
        if description:
            application["Description"] = utf16_cut(description, 200)  # Xero counts UTF-16 units
        if units is not None:
            periods = self._leave_periods(employee_id, date.fromisoformat(start_date), date.fromisoformat(end_date),
                                          units)
            if periods is not None:  # else Xero counts the hours (a pay calendar the adapter cannot place them in)
                application["LeavePeriods"] = periods
        created = _body(self._call("POST", "LeaveApplications", json=[application], idempotency_key=idempotency_key),
                        "LeaveApplications") or []
        created = objects(created, NAME, "leave applications")
        if not created or not created[0].get("LeaveApplicationID"):
            raise BadGateway("The leave ledger answered no leave application id")
        # a GUID string; one that is no string or past leave_requests' 200 characters could not be kept (session 30:
        # the run's write failed, every outcome of the run lost)
        return read_id(created[0]["LeaveApplicationID"], APPLICATION_ID_MAX,
                       "The leave ledger answered a leave application id that cannot be read")

    def _pay_calendar(self, employee_id: str) -> tuple[str, date] | None:
        """`(CalendarType, StartDate)` of the employee's payroll calendar; None when there is none or it has no
        StartDate. Employees or PayrollCalendars that are not lists of objects, or a PayrollCalendarID that is no
        string, are the leave ledger's 502 (session 30: `.get` on a string, an "Unexpected error" of the leave job)."""
        employees = objects(_body(self._call("GET", f"Employees/{segment(employee_id)}"), "Employees"), NAME,
                            "employees")
        calendar_id = employees[0].get("PayrollCalendarID") if employees else None
        if not calendar_id:
            return None
        if not isinstance(calendar_id, str):
            raise BadGateway("The leave ledger answered a payroll calendar id that cannot be read")
        calendars = objects(_body(self._call("GET", f"PayrollCalendars/{segment(calendar_id)}"), "PayrollCalendars"),
                            NAME, "payroll calendars")
        anchor = xero_date(calendars[0].get("StartDate")) if calendars else None
        if not anchor:
            return None
        return str(calendars[0].get("CalendarType") or ""), date.fromisoformat(anchor)

    def _leave_periods(self, employee_id: str, start: date, end: date, units: dict) -> list[dict] | None:
        """One LeavePeriod per pay period overlapping the dates, with the sum of its days' hours; None when the
        employee's pay periods cannot be told (Xero then counts the hours itself)."""
        calendar = self._pay_calendar(employee_id)
        spans = pay_periods(*calendar, start, end) if calendar is not None else None
        if spans is None:
            return None
        periods = []
        for first, last in spans:
            hours = sum((Decimal(str(value)) for day, value in units.items()
                         if first <= date.fromisoformat(day) <= last), Decimal(0))
            periods.append({"PayPeriodStartDate": first.isoformat(), "PayPeriodEndDate": last.isoformat(),
                            "NumberOfUnits": float(hours.quantize(UNIT_PLACES))})
        placed = sum(Decimal(str(period["NumberOfUnits"])) for period in periods)
        if placed != sum((Decimal(str(value)) for value in units.values()), Decimal(0)).quantize(UNIT_PLACES):
            raise BadGateway("The leave application's hours fall outside its pay periods")
        return periods

    def reject_leave_application(self, leave_application_id: str) -> None:
        self._call("POST", f"LeaveApplications/{segment(leave_application_id)}/reject")

    def leave_application_status(self, leave_application_id: str) -> str:
        """The application's state read from its LeavePeriods (the module's docstring): REJECTED when every period
        is; else PROCESSED, SCHEDULED or REQUESTED, the furthest any period reached; else the first other state, as
        answered (cut to STATUS_MAX). No application, no periods, or a period whose state is no string: 502."""
        answered = objects(_body(self._call("GET", f"LeaveApplications/{segment(leave_application_id)}"),
                                 "LeaveApplications"), NAME, "leave applications")
        if not answered:
            raise BadGateway("The leave ledger does not know this leave application")
        states = [period.get("LeavePeriodStatus")
                  for period in objects(answered[0].get("LeavePeriods"), NAME, "leave periods")]
        if not states or not all(isinstance(state, str) and state for state in states):
            raise BadGateway("The leave ledger answered a leave application whose state cannot be read")
        if all(state == REJECTED for state in states):
            return REJECTED
        for state in FURTHEST_FIRST:
            if state in states:
                return state
        return next(state for state in states if state != REJECTED)[:STATUS_MAX]
