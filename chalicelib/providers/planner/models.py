"""The planner sandbox's state: its bookings (migration connections_0001)."""
from __future__ import annotations

from datetime import date

from sqlalchemy import Date, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Created, id_column


class PlannerSandboxBooking(Created, Base):
    __tablename__ = "planner_sandbox_bookings"

    id: Mapped[str] = id_column()
    person_id: Mapped[str] = mapped_column(String(100), nullable=False, index=True)
    started_on: Mapped[date] = mapped_column(Date, nullable=False)
    ended_on: Mapped[date] = mapped_column(Date, nullable=False)
    minutes_per_day: Mapped[int] = mapped_column(Integer, nullable=False)
    event_id: Mapped[str | None] = mapped_column(String(100))
    note: Mapped[str | None] = mapped_column(Text)
