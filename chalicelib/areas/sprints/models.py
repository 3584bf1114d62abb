"""Sprints: named date ranges of a project that tasks are planned into."""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, String
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, created_at_column, id_column, updated_at_column

SPRINT_STATUSES = ("planned", "active", "closed")


class Sprint(Base):
    __tablename__ = "sprints"

    id: Mapped[str] = id_column()
    project_id: Mapped[str] = mapped_column(String(36), nullable=False, index=True)  # projects area, no FK
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    start_date: Mapped[date | None] = mapped_column(Date)
    end_date: Mapped[date | None] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(10), nullable=False, default="planned", index=True)
    created_by: Mapped[str | None] = mapped_column(String(36))
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = updated_at_column()
