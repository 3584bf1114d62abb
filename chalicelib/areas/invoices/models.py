"""Invoices: the invoice, its line items, its payments (from the ledger), the time entries it bills,
the service-type to ledger-account mapping rules, the invoice number counter and the ledger sync runs.
Money is Numeric (exact), never float."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import JSON, Date, ForeignKey, Index, Integer, Numeric, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, UTCDateTime, created_at_column, cross_area_key, id_column

INVOICE_STATUSES = ("draft", "finalised", "approved", "sent", "paid", "voided")
PAYMENT_STATUSES = ("unpaid", "partially_paid", "paid")


class Invoice(Timestamps, Base):
    __tablename__ = "invoices"
    __table_args__ = (Index("ix_invoices_list_order", "issued_date", "created_at"),)

    id: Mapped[str] = id_column()
    invoice_number: Mapped[str] = mapped_column(String(50), nullable=False, unique=True)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="draft", index=True)
    currency: Mapped[str] = mapped_column(String(3), nullable=False, default="AUD")
    due_date: Mapped[date | None] = mapped_column(Date)
    issued_date: Mapped[date] = mapped_column(Date, nullable=False)
    notes: Mapped[str | None] = mapped_column(Text)
    company_id: Mapped[str | None] = mapped_column(String(36), index=True)  # deals area, no FK
    contact_id: Mapped[str | None] = mapped_column(String(36))
    budget_id: Mapped[str | None] = mapped_column(cross_area_key("budgets.id", ondelete="SET NULL"), index=True)
    ledger_invoice_id: Mapped[str | None] = mapped_column(String(100), index=True)
    subtotal: Mapped[Decimal] = mapped_column(Numeric(16, 2), nullable=False, default=Decimal("0"))
    tax: Mapped[Decimal] = mapped_column(Numeric(16, 2), nullable=False, default=Decimal("0"))
    total: Mapped[Decimal] = mapped_column(Numeric(16, 2), nullable=False, default=Decimal("0"))
    amount_paid: Mapped[Decimal] = mapped_column(Numeric(16, 2), nullable=False, default=Decimal("0"))
    amount_due: Mapped[Decimal | None] = mapped_column(Numeric(16, 2))
    payment_status: Mapped[str | None] = mapped_column(String(20))
    ledger_status: Mapped[str | None] = mapped_column(String(20))
    ledger_synced_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_by: Mapped[str | None] = mapped_column(String(36))
    # The claim of the push or ledger move under way (one at a time per invoice): set in a committed conditional
    # UPDATE before the ledger is called, cleared with the outcome; older than service_ledger.STALE_CLAIM it is a
    # dead request's and is taken over (invoices_0002).
    ledger_move_since: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # When the last ledger move was written: the version a move's Idempotency-Key is made of (service_ledger._move_key;
    # no sync writes it, unlike updated_at) (invoices_0005).
    ledger_moved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # When the detail's live read or the single sync last asked the ledger for this invoice's state, whatever it
    # answered (a failure, or no such invoice, included): set in a committed conditional UPDATE before the call, so
    # that it is asked at most once a service_ledger_sync.LIVE_READ_SECONDS (`ledger_synced_at` is when the answer
    # written was asked for: an older answer is not written over it, session 27) (invoices_0006).
    ledger_asked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The due date whose passing was told (`invoice_overdue`, service_notices.scan_overdue): set with the notice, so an
    # invoice is told once per due date; a due date moved later is told again when it passes (invoices_0003).
    overdue_noticed_for: Mapped[date | None] = mapped_column(Date)


class InvoiceLineItem(Timestamps, Base):
    __tablename__ = "invoice_line_items"

    id: Mapped[str] = id_column()
    invoice_id: Mapped[str] = mapped_column(ForeignKey("invoices.id", ondelete="CASCADE"), nullable=False, index=True)
    description: Mapped[str] = mapped_column(Text, nullable=False)
    quantity: Mapped[Decimal] = mapped_column(Numeric(12, 2), nullable=False, default=Decimal("1"))
    unit_price: Mapped[Decimal] = mapped_column(Numeric(14, 2), nullable=False, default=Decimal("0"))
    amount: Mapped[Decimal] = mapped_column(Numeric(26, 4), nullable=False, default=Decimal("0"))
    service_type_id: Mapped[str | None] = mapped_column(String(36))
    ledger_account_code: Mapped[str | None] = mapped_column(String(50))
    tax_type: Mapped[str | None] = mapped_column(String(50))
    position: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    # the budget line this line was generated from (budgets' invoiced_amount reads it)
    budget_line_item_id: Mapped[str | None] = mapped_column(
        cross_area_key("budget_line_items.id", ondelete="SET NULL"), index=True)


class InvoicePayment(Base):
    __tablename__ = "invoice_payments"
    __table_args__ = (UniqueConstraint("invoice_id", "ledger_payment_id", name="uq_invoice_payments_ledger"),)

    id: Mapped[str] = id_column()
    invoice_id: Mapped[str] = mapped_column(ForeignKey("invoices.id", ondelete="CASCADE"), nullable=False, index=True)
    ledger_payment_id: Mapped[str] = mapped_column(String(100), nullable=False)
    amount: Mapped[Decimal] = mapped_column(Numeric(16, 2), nullable=False)
    date: Mapped[date | None] = mapped_column(Date)
    reference: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str | None] = mapped_column(String(20))
    created_at: Mapped[datetime] = created_at_column()


class InvoiceTimeEntry(Base):
    """A time entry billed by an invoice line: one row per entry (its primary key), so that an entry is
    never billed twice, also under concurrent generations."""
    __tablename__ = "invoice_time_entries"

    # RESTRICT: a billed entry is not deleted (invoices_0004); its line or invoice goes first
    time_entry_id: Mapped[str] = mapped_column(cross_area_key("time_entries.id", ondelete="RESTRICT"), primary_key=True)
    invoice_id: Mapped[str] = mapped_column(ForeignKey("invoices.id", ondelete="CASCADE"), nullable=False, index=True)
    line_item_id: Mapped[str] = mapped_column(ForeignKey("invoice_line_items.id", ondelete="CASCADE"), nullable=False,
                                              index=True)
    created_at: Mapped[datetime] = created_at_column()


class InvoiceMappingRule(Timestamps, Base):
    __tablename__ = "invoice_mapping_rules"

    service_type_id: Mapped[str] = mapped_column(ForeignKey("config_list_items.id", ondelete="CASCADE"),
                                                 primary_key=True)
    ledger_account_code: Mapped[str] = mapped_column(String(50), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)


class InvoiceNumberCounter(Base):
    """The last invoice number handed out; taken with `UPDATE ... RETURNING` (a row lock held to commit),
    so numbers are unique and gap-free under concurrent creates."""
    __tablename__ = "invoice_number_counters"

    name: Mapped[str] = mapped_column(String(20), primary_key=True)
    last_value: Mapped[int] = mapped_column(Integer, nullable=False, default=0)


class LedgerSyncRun(Base):
    """One run of the batch ledger sync (the hourly job or the route): when, how many, what failed."""
    __tablename__ = "invoice_ledger_sync_runs"

    id: Mapped[str] = id_column()
    trigger: Mapped[str] = mapped_column(String(20), nullable=False)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), index=True)
    updated: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    errors: Mapped[list | None] = mapped_column(JSON)
