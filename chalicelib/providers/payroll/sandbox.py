"""Sandbox leave ledger: Xero Payroll AU's leave behaviour kept in the database.

Four leave types with fixed ids; an employee's balance of each type starts from a deterministic number of
hours (from the employee id) less the hours of their scheduled applications; an employee id containing
`invalid` is unknown to the ledger (502), as is a leave type it does not have. Rejecting an application gives
its hours back. Rejecting one already rejected is refused (502 naming its state), as Xero takes its reject for a
REQUESTED or SCHEDULED application only (Xero-OpenAPI 2.38.0 release notes); `leave_application_status` answers an
application's state (SCHEDULED or REJECTED here), as Xero's GET /LeaveApplications/{id} read from its LeavePeriods,
so that the leave area takes an application the ledger already holds as REJECTED as reversed (a rejection whose
answer was lost; docs/decisions/leave.md, session 32).

An application's hours are the ones it carries (`units`, hours per day: Xero given LeavePeriods takes their
NumberOfUnits): their sum, whatever the weekdays; hours on a day outside its dates, or below zero, are refused
(502). Only an application carrying none is counted by the ledger itself, 7.6 hours a weekday (session 24,
docs/decisions/leave.md).

A leave application is the ledger's own record: it is committed at once, in a transaction of its own, and kept
whatever becomes of the caller's; so is its rejection (session 32: it was written in the caller's transaction, and
undone with it). An application with an idempotency key behaves as Xero's
(chalicelib/providers/ledger/base.py): a key seen in the last 6 minutes answers the first application's id and
makes nothing, or is refused (502) when it comes with a different application; an older one is forgotten.
"""
from __future__ import annotations

import hashlib
import uuid
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import func, select

from chalicelib.core.errors import BadGateway
from chalicelib.providers.ledger.sandbox import check_key, create_once, own_unit

from .models import PayrollSandboxLeaveApplication

HOURS_PER_DAY = Decimal("7.6")
LEAVE_TYPES = (
    {"id": "a6a6c1b4-0000-4000-8000-000000000001", "name": "Annual Leave", "is_paid": True, "base": 152},
    {"id": "a6a6c1b4-0000-4000-8000-000000000002", "name": "Personal/Carer's Leave", "is_paid": True, "base": 76},
    {"id": "a6a6c1b4-0000-4000-8000-000000000003", "name": "Long Service Leave", "is_paid": True, "base": 0},
    {"id": "a6a6c1b4-0000-4000-8000-000000000004", "name": "Unpaid Leave", "is_paid": False, "base": 0},
)
_BY_ID = {item["id"]: item for item in LEAVE_TYPES}


def _weekdays(start: date, end: date) -> int:
    days = 0
    day = start
    while day <= end:
        days += day.weekday() < 5
        day += timedelta(days=1)
    return days


REFUSED = "The leave ledger refused the request"
REJECTABLE = ("REQUESTED", "SCHEDULED")  # Xero's reject: "rejection of REQUESTED or SCHEDULED leave applications"


def _carried(units: dict, start: date, end: date) -> Decimal:
    """The hours an application carries: the sum of its days' hours (to the cent, the column's scale), each day
    within its dates and none below zero (else 502, as Xero refuses a leave period it cannot place)."""
    total = Decimal(0)
    for day, hours in units.items():
        hours = Decimal(str(hours))
        if not start <= date.fromisoformat(day) <= end:
            raise BadGateway(f"{REFUSED}: {day} is outside the leave application's dates")
        if hours < 0:
            raise BadGateway(f"{REFUSED}: The number of units cannot be negative")
        total += hours
    return total.quantize(Decimal("0.01"))


class SandboxPayroll:
    def __init__(self, *, db) -> None:
        self.db = db

    @staticmethod
    def _check_employee(employee_id: str) -> None:
        if not employee_id or "invalid" in employee_id.lower():
            raise BadGateway("The leave ledger refused the request: The employee could not be found")

    def list_leave_types(self) -> list[dict]:
        return [{key: item[key] for key in ("id", "name", "is_paid")} for item in LEAVE_TYPES]

    def leave_balances(self, employee_id: str) -> list[dict]:
        self._check_employee(employee_id)
        taken = dict(self.db.execute(
            select(PayrollSandboxLeaveApplication.leave_type_id, func.sum(PayrollSandboxLeaveApplication.hours))
            .where(PayrollSandboxLeaveApplication.employee_id == employee_id,
                   PayrollSandboxLeaveApplication.status == "SCHEDULED")
            .group_by(PayrollSandboxLeaveApplication.leave_type_id)).all())
        extra = int(hashlib.sha1(employee_id.encode()).hexdigest()[:4], 16) % 40
        return [{"leave_type_id": item["id"], "leave_type_name": item["name"],
                 "balance_hours": float(Decimal(item["base"] + (extra if item["base"] else 0))
                                        - Decimal(taken.get(item["id"]) or 0))}
                for item in LEAVE_TYPES if item["is_paid"]]

    def create_leave_application(self, *, employee_id: str, leave_type_id: str, title: str, start_date: str,
                                 end_date: str, description: str | None = None,
                                 units: dict[str, Decimal] | None = None,
                                 idempotency_key: str | None = None) -> str:
        self._check_employee(employee_id)
        if leave_type_id not in _BY_ID:
            raise BadGateway("The leave ledger refused the request: The leave type could not be found")
        check_key(idempotency_key, REFUSED)
        start, end = date.fromisoformat(start_date), date.fromisoformat(end_date)
        hours = HOURS_PER_DAY * _weekdays(start, end) if units is None else _carried(units, start, end)
        # the hours belong to the application: the same key with other hours is another request (refused)
        fields = {"employee_id": employee_id, "leave_type_id": leave_type_id, "title": title[:200],
                  "start_date": start, "end_date": end, "hours": hours}
        return create_once(PayrollSandboxLeaveApplication, fields, idempotency_key, REFUSED,
                           lambda: PayrollSandboxLeaveApplication(
                               id=str(uuid.uuid4()), status="SCHEDULED", idempotency_key=idempotency_key,
                               **fields))["id"]

    def reject_leave_application(self, leave_application_id: str) -> None:
        with own_unit(self) as db:  # the ledger keeps the rejection whatever the caller does next
            application = db.get(PayrollSandboxLeaveApplication, leave_application_id, with_for_update=True)
            if application is None:
                raise BadGateway(f"{REFUSED}: The leave application could not be found")
            if application.status not in REJECTABLE:  # Xero: a REQUESTED or SCHEDULED application only
                raise BadGateway(f"{REFUSED}: The leave application is {application.status}; only a REQUESTED or "
                                 "SCHEDULED leave application can be rejected")
            application.status = "REJECTED"

    def leave_application_status(self, leave_application_id: str) -> str:
        """The application's state as the ledger holds it (committed: the rejection is the ledger's own, `own_unit`);
        one the ledger does not know is refused (502), as its rejection is."""
        status = self.db.scalar(select(PayrollSandboxLeaveApplication.status)
                                .where(PayrollSandboxLeaveApplication.id == leave_application_id))
        if status is None:
            raise BadGateway(f"{REFUSED}: The leave application could not be found")
        return status
