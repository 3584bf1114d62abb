"""Budgets of a project or a deal, with priced line items. Money is Numeric (exact), never float."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import Date, ForeignKey, Index, Integer, Numeric, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, id_column

BUDGET_TYPES = ("sprints", "retainer", "time_and_materials", "fixed_price")
BUDGET_STATUSES = ("draft", "pending_approval", "approved", "active", "completed", "cancelled")
# A budget called off (decisions.md section 9's `cancelled`): it bills nothing more (invoices' check_not_cancelled), its
# line items stay as they were when it was cancelled, and no time is logged on it anew (timesheets); session 31,
# docs/decisions/budgets.md "A cancelled budget is closed". Other areas read it through the budgets service.
CANCELLED = "cancelled"
RESOURCE_TYPES = ("project", "deal")


class Budget(Timestamps, Base):
    __tablename__ = "budgets"
    __table_args__ = (Index("ix_budgets_resource", "resource_type", "resource_id"),
                      Index("ix_budgets_list_order", "created_at"))  # migration budgets_0002

    id: Mapped[str] = id_column()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    resource_type: Mapped[str] = mapped_column(String(20), nullable=False)
    resource_id: Mapped[str] = mapped_column(String(36), nullable=False)  # project or deal, no FK (other areas)
    po_number: Mapped[str | None] = mapped_column(String(100))
    currency: Mapped[str] = mapped_column(String(3), nullable=False, default="AUD")
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="draft", index=True)
    total_amount: Mapped[Decimal | None] = mapped_column(Numeric(14, 2))
    company_id: Mapped[str | None] = mapped_column(String(36), index=True)
    notes: Mapped[str | None] = mapped_column(Text)
    owner_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_by: Mapped[str | None] = mapped_column(String(36))
    budget_type: Mapped[str | None] = mapped_column(String(30))
    forecast_date: Mapped[date | None] = mapped_column(Date)


class BudgetLineItem(Timestamps, Base):
    __tablename__ = "budget_line_items"

    id: Mapped[str] = id_column()
    budget_id: Mapped[str] = mapped_column(ForeignKey("budgets.id", ondelete="CASCADE"), nullable=False, index=True)
    description: Mapped[str] = mapped_column(Text, nullable=False)
    quantity: Mapped[Decimal] = mapped_column(Numeric(12, 2), nullable=False, default=Decimal("1"))
    unit_price: Mapped[Decimal] = mapped_column(Numeric(14, 2), nullable=False, default=Decimal("0"))
    amount: Mapped[Decimal] = mapped_column(Numeric(26, 4), nullable=False, default=Decimal("0"))
    service_type_id: Mapped[str | None] = mapped_column(String(36))
    task_id: Mapped[str | None] = mapped_column(String(36))
    position: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
