"""Tables behind notification delivery, in core because delivery runs in every area's function.

Preferences (a user's overrides of the catalogue's default channels), deliveries (one row per
channel message, the idempotency key of the queue worker), push subscriptions, squad
configuration, and the sandbox outbox where sandbox providers keep what they would have sent.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .db import Base, Created, Timestamps, UTCDateTime, created_at_column, id_column, updated_at_column


class NotificationPreference(Base):
    __tablename__ = "notification_preferences"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    notification_type: Mapped[str] = mapped_column(String(100), primary_key=True)
    channel_in_app: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    channel_email: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    channel_chat: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    channel_push: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    updated_at: Mapped[datetime] = updated_at_column()

    def channels(self) -> dict[str, bool]:
        return {"in_app": self.channel_in_app, "email": self.channel_email, "chat": self.channel_chat,
                "push": self.channel_push}


class NotificationDelivery(Timestamps, Base):
    """One message for one channel. Status: pending, sending (a worker is calling the provider), sent, failed,
    skipped."""

    __tablename__ = "notification_deliveries"
    __table_args__ = (
        Index("ix_notification_deliveries_status", "status", "created_at"),
        Index("ix_notification_deliveries_created", "created_at"),
    )

    id: Mapped[str] = id_column()
    notification_id: Mapped[str | None] = mapped_column(String(36), index=True)
    user_id: Mapped[str | None] = mapped_column(String(36))
    squad_id: Mapped[str | None] = mapped_column(String(36))
    channel: Mapped[str] = mapped_column(String(20), nullable=False)
    target: Mapped[str | None] = mapped_column(String(320))
    type: Mapped[str] = mapped_column(String(100), nullable=False)
    payload: Mapped[dict] = mapped_column(JSON, nullable=False, default=dict)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="pending")
    error: Mapped[str | None] = mapped_column(Text)
    external_id: Mapped[str | None] = mapped_column(String(200))
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    last_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class PushSubscription(Base):
    __tablename__ = "push_subscriptions"

    id: Mapped[str] = id_column()
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True)
    endpoint: Mapped[str] = mapped_column(String(1000), nullable=False, unique=True)
    p256dh: Mapped[str] = mapped_column(String(200), nullable=False)
    auth: Mapped[str] = mapped_column(String(100), nullable=False)
    user_agent: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime] = created_at_column()
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class SquadNotificationConfig(Base):
    __tablename__ = "squad_notification_configs"

    squad_id: Mapped[str] = mapped_column(ForeignKey("squads.id", ondelete="CASCADE"), primary_key=True)
    notification_type: Mapped[str] = mapped_column(String(100), primary_key=True)
    chat_channel_id: Mapped[str | None] = mapped_column(String(200))
    email_group: Mapped[str | None] = mapped_column(String(320))
    enabled: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    updated_at: Mapped[datetime] = updated_at_column()


class SandboxOutboxMessage(Created, Base):
    """What a sandbox provider (mail, chat, push) would have sent; tests and `make run` read it."""

    __tablename__ = "sandbox_outbox"
    __table_args__ = (Index("ix_sandbox_outbox_provider_created", "provider", "created_at"),)

    id: Mapped[str] = id_column()
    provider: Mapped[str] = mapped_column(String(20), nullable=False)
    target: Mapped[str] = mapped_column(Text, nullable=False)  # whole, as the provider takes them (notifications_0003)
    subject: Mapped[str | None] = mapped_column(Text)
    body: Mapped[str | None] = mapped_column(Text)
    payload: Mapped[dict | None] = mapped_column(JSON)
    external_id: Mapped[str] = mapped_column(String(200), nullable=False)
