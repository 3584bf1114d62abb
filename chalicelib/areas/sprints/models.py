"""Sprints: named date ranges of a project that tasks are planned into."""
from __future__ import annotations

from datetime import date

from sqlalchemy import Date, String
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, id_column

SPRINT_STATUSES = ("planned", "active", "closed")


class Sprint(Timestamps, Base):
    __tablename__ = "sprints"

    id: Mapped[str] = id_column()
    project_id: Mapped[str] = mapped_column(String(36), nullable=False, index=True)  # projects area, no FK
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    start_date: Mapped[date | None] = mapped_column(Date)
    end_date: Mapped[date | None] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(10), nullable=False, default="planned", index=True)
    created_by: Mapped[str | None] = mapped_column(String(36))
