"""The sandbox calendar's state: events per calendar, as the provider would hold them (Google's shape)."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, JSON, Timestamps, UTCDateTime


class SandboxCalendarEvent(Timestamps, Base):
    __tablename__ = "sandbox_calendar_events"
    __table_args__ = (Index("ix_sandbox_calendar_events_calendar_start", "calendar_id", "start_at"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    calendar_id: Mapped[str] = mapped_column(String(320), nullable=False)  # an e-mail (primary) or the team id
    organizer_email: Mapped[str] = mapped_column(String(320), nullable=False)
    attendee_emails: Mapped[str] = mapped_column(Text, nullable=False, default="")  # `,a@x,b@y,` for LIKE
    start_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    end_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    event: Mapped[dict] = mapped_column(JSON, nullable=False)
