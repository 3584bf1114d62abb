"""Meetings: notes synchronised from the meeting-notes provider, their attendees and action items, and the
sync's state."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Created, Timestamps, UTCDateTime, id_column

ACTION_STATUSES = ("pending", "done", "dismissed")
ENTITY_TYPES = ("project", "company", "contact", "deal")


class Meeting(Timestamps, Base):
    __tablename__ = "meetings"
    __table_args__ = (Index("ix_meetings_meeting_date", "meeting_date"),
                      Index("ix_meetings_entity", "entity_type", "entity_id"))

    id: Mapped[str] = mapped_column(String(100), primary_key=True)  # the provider's note id
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    summary: Mapped[str | None] = mapped_column(Text)
    category: Mapped[str | None] = mapped_column(String(50))
    meeting_date: Mapped[datetime | None] = mapped_column(UTCDateTime())
    duration_minutes: Mapped[float | None] = mapped_column(Float)
    organizer_email: Mapped[str | None] = mapped_column(String(320))
    action_items_text: Mapped[str | None] = mapped_column(Text)  # the provider's own action items
    entity_type: Mapped[str | None] = mapped_column(String(50))
    entity_id: Mapped[str | None] = mapped_column(String(36))
    transcript: Mapped[list | None] = mapped_column(JSON)  # fetched on first request, then cached
    analysed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class MeetingAttendee(Base):
    __tablename__ = "meeting_attendees"
    __table_args__ = (Index("ix_meeting_attendees_user_id", "user_id"),)

    meeting_id: Mapped[str] = mapped_column(ForeignKey("meetings.id", ondelete="CASCADE"), primary_key=True)
    email: Mapped[str] = mapped_column(String(320), primary_key=True)
    name: Mapped[str | None] = mapped_column(String(200))
    user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class MeetingActionItem(Created, Base):
    __tablename__ = "meeting_action_items"
    __table_args__ = (UniqueConstraint("meeting_id", "position", name="uq_meeting_action_items_meeting_position"),)

    id: Mapped[str] = id_column()
    meeting_id: Mapped[str] = mapped_column(ForeignKey("meetings.id", ondelete="CASCADE"), nullable=False)
    position: Mapped[int] = mapped_column(Integer, nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="pending")
    assignee_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    source: Mapped[str] = mapped_column(String(20), nullable=False, default="ai")


class MeetingSyncState(Base):
    """One row per provider (`meetnotes`): when the last sync ran and the newest note it saw."""

    __tablename__ = "meeting_sync_state"

    provider: Mapped[str] = mapped_column(String(50), primary_key=True)
    last_synced_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_note_date: Mapped[datetime | None] = mapped_column(UTCDateTime())
