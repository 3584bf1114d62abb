"""Time entries: hours a user logged on a date, optionally against a task, project, budget line."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

from sqlalchemy import Boolean, Date, ForeignKey, Index, Numeric, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, UTCDateTime, created_at_column, cross_area_key, id_column, updated_at_column

ENTRY_STATUSES = ("draft", "submitted", "approved", "rejected")


class TimeEntry(Base):
    __tablename__ = "time_entries"
    __table_args__ = (  # the list's order (migration timesheets_0002)
        Index("ix_time_entries_list_order", "date", "created_at"),
    )

    id: Mapped[str] = id_column()
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True)
    date: Mapped[dt.date] = mapped_column(Date, nullable=False, index=True)
    hours: Mapped[Decimal] = mapped_column(Numeric(5, 2), nullable=False)
    # Records of other areas: plain ids, no foreign keys, but for the task: a task's delete clears it (migration
    # timesheets_0004, session 31). A project an entry names is not deleted (docs/decisions/timesheets.md).
    task_id: Mapped[str | None] = mapped_column(String(36), cross_area_key("tasks.id", ondelete="SET NULL"), index=True)
    project_id: Mapped[str | None] = mapped_column(String(36), index=True)
    budget_id: Mapped[str | None] = mapped_column(String(36), index=True)
    line_item_id: Mapped[str | None] = mapped_column(String(36), index=True)
    billable: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    status: Mapped[str] = mapped_column(String(10), nullable=False, default="draft", index=True)
    description: Mapped[str | None] = mapped_column(Text)
    submitted_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime())
    approved_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    approved_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime())
    rejected_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    rejected_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime())
    rejection_reason: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[str | None] = mapped_column(String(36))
    # who last changed its values through an update (timesheets_0003): an editor other than the owner does not
    # approve it (docs/decisions/timesheets.md, "Editor is not approver")
    updated_by: Mapped[str | None] = mapped_column(String(36))
    created_at: Mapped[dt.datetime] = created_at_column()
    updated_at: Mapped[dt.datetime] = updated_at_column()
