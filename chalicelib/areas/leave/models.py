"""Leave: leave types and balances cached from the leave ledger, leave requests with their approval chain and
the outcome of each integration run on approval."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Boolean, Date, ForeignKey, Index, Integer, Numeric, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import JSON, Base, Timestamps, UTCDateTime, id_column
from chalicelib.providers.payroll.models import PayrollSandboxLeaveApplication  # noqa: F401 (migrated by leave_0002)

STATUSES = ("pending_manager", "pending_exec", "approved", "rejected", "cancelled")
PENDING = ("pending_manager", "pending_exec")
ACTIVE = ("pending_manager", "pending_exec", "approved")  # what an overlapping request collides with
INTEGRATIONS = ("ledger", "planner", "calendar", "chat")


class LeaveType(Base):
    """A leave type as the ledger answered it; `id` is the ledger's own id (leave applications name it)."""

    __tablename__ = "leave_types"

    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    is_paid: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    fetched_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)


class LeaveBalance(Base):
    """One leave type's balance of a user as the ledger answered it for `ledger_employee_id` (service_cache)."""

    __tablename__ = "leave_balances"
    __table_args__ = (UniqueConstraint("user_id", "leave_type_id", name="uq_leave_balances_user_type"),)

    id: Mapped[str] = id_column()
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    leave_type_id: Mapped[str] = mapped_column(String(100), nullable=False)
    leave_type_name: Mapped[str] = mapped_column(String(200), nullable=False)
    balance_hours: Mapped[Decimal] = mapped_column(Numeric(10, 2), nullable=False)
    fetched_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    # The ledger employee the rows were fetched for (the user's mapping then; leave_0005): served only while it is
    # the user's mapping now. NULL (rows cached before leave_0005) never matches: fetched again.
    ledger_employee_id: Mapped[str | None] = mapped_column(String(100))


class LeaveBalanceDrop(Base):
    """When the user's cached balances were last dropped because the app booked or reversed leave of theirs in the
    ledger (service_cache.mark_balances_stale, leave_0007): balances read before it are never cached (session 27)."""

    __tablename__ = "leave_balance_drops"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    dropped_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)


class LeaveRequest(Timestamps, Base):
    __tablename__ = "leave_requests"
    __table_args__ = (Index("ix_leave_requests_user_dates", "user_id", "start_date", "end_date"),
                      Index("ix_leave_requests_status", "status"))

    id: Mapped[str] = id_column()
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    leave_type_id: Mapped[str] = mapped_column(String(100), nullable=False)
    leave_type_name: Mapped[str] = mapped_column(String(200), nullable=False)
    start_date: Mapped[date] = mapped_column(Date, nullable=False)
    end_date: Mapped[date] = mapped_column(Date, nullable=False)
    total_hours: Mapped[Decimal | None] = mapped_column(Numeric(8, 2))
    notes: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), nullable=False)
    manager_approved_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    manager_approved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    exec_approved_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    exec_approved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    rejected_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    rejected_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    rejection_reason: Mapped[str | None] = mapped_column(Text)
    cancelled_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    cancelled_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    ledger_leave_application_id: Mapped[str | None] = mapped_column(String(200))
    planner_booking_id: Mapped[str | None] = mapped_column(String(200))
    calendar_event_id: Mapped[str | None] = mapped_column(String(200))
    chat_message_ts: Mapped[str | None] = mapped_column(String(100))
    chat_channel: Mapped[str | None] = mapped_column(String(200))
    integration_errors: Mapped[dict | None] = mapped_column(JSON)
    # The claim of the run calling the providers (service_integrations.claim): set by one conditional UPDATE,
    # cleared with the outcome; older than service_integrations.STALE_CLAIM it is a dead run's (leave_0003).
    integrations_running_since: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # How many times a reversal of the cancelled request recorded its outcome (service_integrations._undo,
    # leave_0006): 0 while it never ran; the job retries a failed reversal while it is below REVERSAL_ATTEMPTS.
    reversal_attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    # The hours per day the ledger's leave application was first sent with, `{YYYY-MM-DD: "hours"}` (decimal
    # strings; service_integrations.run, leave_0008): every retry sends them unchanged, so its Idempotency-Key is the
    # first attempt's. NULL while the ledger was never called.
    ledger_units: Mapped[dict | None] = mapped_column(JSON)
