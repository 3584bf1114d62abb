"""Leave ledger: the leave side of Xero Payroll AU (leave types, an employee's leave balances, leave
applications), the interface every adapter implements. The accounting side of the same Xero connection is
the ledger provider (chalicelib/providers/ledger); the live adapter here reuses its authenticated transport."""
from __future__ import annotations

from decimal import Decimal
from typing import Protocol


class PayrollProvider(Protocol):
    def list_leave_types(self) -> list[dict]:
        """`[{id, name, is_paid}]`: the organisation's leave types (the ledger's ids)."""
        ...

    def leave_balances(self, employee_id: str) -> list[dict]:
        """`[{leave_type_id, leave_type_name, balance_hours}]` of one payroll employee (hours as float)."""
        ...

    def create_leave_application(self, *, employee_id: str, leave_type_id: str, title: str, start_date: str,
                                 end_date: str, description: str | None = None,
                                 units: dict[str, Decimal] | None = None,
                                 idempotency_key: str | None = None) -> str:
        """Apply for leave (dates YYYY-MM-DD); answers the leave application's id. `units`: the hours the
        application takes from the balance, `{YYYY-MM-DD: hours}` for each day that carries any (the app's working
        days, within the dates): the ledger takes exactly their sum (Xero: as `LeavePeriods`, one per pay period);
        without them the ledger counts its own (docs/decisions/leave.md, session 24). With `idempotency_key` (as
        the ledger's: chalicelib/providers/ledger/base.py), an application the ledger has seen with that key
        answers the first one's id and makes nothing."""
        ...

    def reject_leave_application(self, leave_application_id: str) -> None:
        """Withdraw an application (Xero: reject a REQUESTED or SCHEDULED application; one in another state, a
        REJECTED one included, is refused: BadGateway naming its state)."""
        ...

    def leave_application_status(self, leave_application_id: str) -> str:
        """The state of one application, as the ledger holds it now: `REJECTED` when it is withdrawn (Xero: every
        one of its LeavePeriods REJECTED), else `PROCESSED`, `SCHEDULED` or `REQUESTED` (the furthest any of its
        periods went; Xero's LeavePeriodStatus), or another state the ledger answers, as answered. An application
        the ledger does not know, or answers in no readable shape, is BadGateway (never taken as rejected)."""
        ...
