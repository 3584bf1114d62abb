"""Action items: a per-user work queue gathered from several modules, and per-user module preferences."""
from __future__ import annotations

from datetime import date

from sqlalchemy import Boolean, Date, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, cross_area_key, id_column

URGENCIES = ("overdue", "today", "this_week", "normal")


class ActionItem(Timestamps, Base):
    __tablename__ = "action_items"
    __table_args__ = (Index("ix_action_items_assigned_open", "assigned_to", "is_completed"),)

    id: Mapped[str] = id_column()
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    company_id: Mapped[str | None] = mapped_column(String(36))  # deals area, no FK
    contact_id: Mapped[str | None] = mapped_column(String(36))  # deals area, no FK
    deal_id: Mapped[str | None] = mapped_column(String(36))  # deals area, no FK
    # projects area: a project's delete clears it (migration action_items_0003, session 31)
    project_id: Mapped[str | None] = mapped_column(String(36), cross_area_key("projects.id", ondelete="SET NULL"),
                                                   index=True)
    assigned_to: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    due_date: Mapped[date | None] = mapped_column(Date)
    notes: Mapped[str | None] = mapped_column(Text)
    urgency: Mapped[str] = mapped_column(String(20), nullable=False, default="normal")
    # the day (ORG_TIMEZONE) `urgency` was written; before today (or null) a read answers the due date's urgency
    # of today instead (queries.current_urgency; migration action_items_0002)
    urgency_on: Mapped[date | None] = mapped_column(Date)
    source_module: Mapped[str] = mapped_column(String(50), nullable=False, default="manual")
    source_type: Mapped[str | None] = mapped_column(String(50))
    source_id: Mapped[str | None] = mapped_column(String(200))  # the record at the source (auto-action, message)
    is_completed: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)


class ActionItemPreference(Base):
    __tablename__ = "action_item_preferences"
    __table_args__ = (UniqueConstraint("user_id", "source_module", name="uq_action_item_preferences_user_module"),)

    id: Mapped[str] = id_column()
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    source_module: Mapped[str] = mapped_column(String(50), nullable=False)
    is_visible: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    show_in_feed: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    show_work_board: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
