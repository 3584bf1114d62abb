"""The sandbox leave ledger's state: leave applications (migrated by leave_0002), with the idempotency key each was
created with (leave_0004)."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import Date, Numeric, String
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps


class PayrollSandboxLeaveApplication(Timestamps, Base):
    __tablename__ = "payroll_sandbox_leave_applications"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    employee_id: Mapped[str] = mapped_column(String(100), nullable=False, index=True)
    leave_type_id: Mapped[str] = mapped_column(String(100), nullable=False)
    title: Mapped[str] = mapped_column(String(200), nullable=False)
    start_date: Mapped[date] = mapped_column(Date, nullable=False)
    end_date: Mapped[date] = mapped_column(Date, nullable=False)
    hours: Mapped[Decimal] = mapped_column(Numeric(10, 2), nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False)  # SCHEDULED or REJECTED
    idempotency_key: Mapped[str | None] = mapped_column(String(128), unique=True)
