"""Service levels: SLA policies with per-priority rules, and the SLA assignment of a task."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Float, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, UTCDateTime, cross_area_key, id_column


class SlaPolicy(Timestamps, Base):
    __tablename__ = "sla_policies"

    id: Mapped[str] = id_column()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    company_id: Mapped[str | None] = mapped_column(String(36), index=True)  # deals area, no FK
    created_by: Mapped[str | None] = mapped_column(String(36))


class SlaPolicyRule(Base):
    __tablename__ = "sla_policy_rules"
    __table_args__ = (UniqueConstraint("policy_id", "priority_id", name="uq_sla_policy_rules_policy_priority"),)

    id: Mapped[str] = id_column()
    policy_id: Mapped[str] = mapped_column(ForeignKey("sla_policies.id", ondelete="CASCADE"), nullable=False,
                                           index=True)
    priority_id: Mapped[str] = mapped_column(ForeignKey("config_list_items.id", ondelete="CASCADE"), nullable=False)
    response_hours: Mapped[float] = mapped_column(Float, nullable=False)
    resolution_hours: Mapped[float] = mapped_column(Float, nullable=False)


class TaskSla(Timestamps, Base):
    """One per task (reassigning replaces it). `created_at` is the start time the deadlines count from."""
    __tablename__ = "task_slas"

    id: Mapped[str] = id_column()
    task_id: Mapped[str] = mapped_column(cross_area_key("tasks.id", ondelete="CASCADE"), nullable=False, unique=True)
    policy_id: Mapped[str] = mapped_column(ForeignKey("sla_policies.id", ondelete="CASCADE"), nullable=False,
                                           index=True)
    priority_id: Mapped[str | None] = mapped_column(String(36))
    response_deadline: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    resolution_deadline: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    responded_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    response_breached: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    resolution_breached: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    breach_notified_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
