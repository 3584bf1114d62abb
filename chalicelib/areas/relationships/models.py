"""Relationships: per-contact relationship profiles, life events, relationship actions (mirrored to the
action centre), messages (SMS, MMS, message app), partners of client companies, and draft client wins."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import JSON, Boolean, CheckConstraint, Date, ForeignKey, Index, Integer, Numeric, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, UTCDateTime, created_at_column, cross_area_key, id_column

ACTION_STATUSES = ("pending", "done", "dismissed")
MESSAGE_CHANNELS = ("sms", "msgapp", "mms")


class RelationshipProfile(Timestamps, Base):
    __tablename__ = "relationship_profiles"
    __table_args__ = (UniqueConstraint("contact_id", name="uq_relationship_profiles_contact_id"),)

    id: Mapped[str] = id_column()
    contact_id: Mapped[str] = mapped_column(cross_area_key("contacts.id", ondelete="CASCADE"), nullable=False)
    communication_preference: Mapped[str | None] = mapped_column(String(50))
    communication_notes: Mapped[str | None] = mapped_column(Text)
    personal_notes: Mapped[str | None] = mapped_column(Text)
    birthday: Mapped[str | None] = mapped_column(String(10))
    birthday_year: Mapped[int | None] = mapped_column(Integer)
    home_address: Mapped[str | None] = mapped_column(Text)
    interests: Mapped[list] = mapped_column(JSON, nullable=False, default=list)
    dietary_requirements: Mapped[str | None] = mapped_column(String(500))
    preferred_name: Mapped[str | None] = mapped_column(String(200))
    assistant_name: Mapped[str | None] = mapped_column(String(200))
    assistant_email: Mapped[str | None] = mapped_column(String(320))
    phone_number: Mapped[str | None] = mapped_column(String(50))
    msgapp_number: Mapped[str | None] = mapped_column(String(50))
    sms_opt_in: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)


class LifeEvent(Timestamps, Base):
    __tablename__ = "life_events"
    __table_args__ = (Index("ix_life_events_contact_date", "contact_id", "event_date"),)

    id: Mapped[str] = id_column()
    contact_id: Mapped[str] = mapped_column(cross_area_key("contacts.id", ondelete="CASCADE"), nullable=False)
    event_type: Mapped[str] = mapped_column(String(50), nullable=False)
    title: Mapped[str] = mapped_column(String(300), nullable=False)
    event_date: Mapped[date | None] = mapped_column(Date)
    recurs_annually: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    description: Mapped[str | None] = mapped_column(Text)
    auto_action_enabled: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    auto_action_days_before: Mapped[int] = mapped_column(Integer, nullable=False, default=7)
    company_id: Mapped[str | None] = mapped_column(cross_area_key("companies.id", ondelete="SET NULL"), index=True)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class RelationshipAction(Timestamps, Base):
    __tablename__ = "relationship_actions"
    __table_args__ = (
        # one auto-action per occurrence of a life event, however often the job runs
        UniqueConstraint("life_event_id", "occurrence_date", name="uq_relationship_actions_event_occurrence"),
        Index("ix_relationship_actions_contact", "contact_id", "created_at"),
        Index("ix_relationship_actions_assigned_status", "assigned_to_user_id", "status"),
        CheckConstraint("status IN ('pending', 'done', 'dismissed')", name="ck_relationship_actions_status"),
    )

    id: Mapped[str] = id_column()
    contact_id: Mapped[str] = mapped_column(cross_area_key("contacts.id", ondelete="CASCADE"), nullable=False)
    life_event_id: Mapped[str | None] = mapped_column(ForeignKey("life_events.id", ondelete="SET NULL"))
    occurrence_date: Mapped[date | None] = mapped_column(Date)
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    action_type: Mapped[str] = mapped_column(String(50), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    assigned_to_user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    due_date: Mapped[date | None] = mapped_column(Date)
    message_body: Mapped[str | None] = mapped_column(Text)
    company_id: Mapped[str | None] = mapped_column(cross_area_key("companies.id", ondelete="SET NULL"), index=True)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="pending")
    is_auto: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class RelationshipMessage(Base):
    __tablename__ = "relationship_messages"
    __table_args__ = (Index("ix_relationship_messages_contact_created", "contact_id", "created_at"),)

    id: Mapped[str] = id_column()
    contact_id: Mapped[str] = mapped_column(cross_area_key("contacts.id", ondelete="CASCADE"), nullable=False)
    channel: Mapped[str] = mapped_column(String(10), nullable=False)
    body: Mapped[str] = mapped_column(Text, nullable=False)
    media_url: Mapped[str | None] = mapped_column(String(2000))
    to_number: Mapped[str] = mapped_column(String(50), nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="queued")
    provider_message_id: Mapped[str | None] = mapped_column(String(100))
    error: Mapped[str | None] = mapped_column(Text)
    auto_action_id: Mapped[str | None] = mapped_column(ForeignKey("relationship_actions.id", ondelete="SET NULL"))
    sent_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = created_at_column()


class Partner(Timestamps, Base):
    __tablename__ = "client_partners"

    id: Mapped[str] = id_column()
    company_id: Mapped[str] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"), nullable=False,
                                            index=True)
    partner_company_name: Mapped[str] = mapped_column(String(200), nullable=False)
    partner_contact_name: Mapped[str | None] = mapped_column(String(200))
    partner_contact_email: Mapped[str | None] = mapped_column(String(320))
    relationship_type: Mapped[str | None] = mapped_column(String(100))
    estimated_deal_size: Mapped[Decimal | None] = mapped_column(Numeric(14, 2))
    notes: Mapped[str | None] = mapped_column(Text)
    contact_id: Mapped[str | None] = mapped_column(cross_area_key("contacts.id", ondelete="SET NULL"))
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class ClientWin(Timestamps, Base):
    """A draft client win, made when a project with a company is completed (document 1, project update)."""
    __tablename__ = "client_wins"
    __table_args__ = (UniqueConstraint("project_id", name="uq_client_wins_project_id"),)

    id: Mapped[str] = id_column()
    company_id: Mapped[str] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"), nullable=False,
                                            index=True)
    project_id: Mapped[str] = mapped_column(cross_area_key("projects.id", ondelete="CASCADE"), nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="draft")
    summary: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
