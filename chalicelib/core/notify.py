"""notify(): the internal operation every area calls to tell a user something.

It writes the in-app notification in the request's transaction, skips a repeat of the same user,
type and resource within 5 minutes, and after commit sends one delivery message per enabled
channel (email, chat, push) to the notifications queue, or delivers in-process without a queue.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Boolean, Index, String, Text, select
from sqlalchemy.orm import Mapped, mapped_column

from .db import Base, UTCDateTime, created_at_column, id_column
from .ids import utcnow

DEDUP_WINDOW = timedelta(minutes=5)


class Notification(Base):
    __tablename__ = "notifications"
    __table_args__ = (
        Index("ix_notifications_user_created", "user_id", "created_at"),
        Index("ix_notifications_dedup", "user_id", "type", "resource_type", "resource_id", "created_at"),
    )

    id: Mapped[str] = id_column()
    user_id: Mapped[str] = mapped_column(String(36), nullable=False)
    type: Mapped[str] = mapped_column(String(100), nullable=False)
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    body: Mapped[str | None] = mapped_column(Text)
    icon: Mapped[str | None] = mapped_column(String(100))
    resource_type: Mapped[str | None] = mapped_column(String(50))
    resource_id: Mapped[str | None] = mapped_column(String(36))
    action_url: Mapped[str | None] = mapped_column(Text)
    actor_id: Mapped[str | None] = mapped_column(String(36))
    is_read: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    read_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    archived: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    archived_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = created_at_column()


def notify(ctx, *, user_id: str, type: str, title: str, body: str | None = None, resource_type: str | None = None,
           resource_id: str | None = None, action_url: str | None = None, actor_id: str | None = None,
           icon: str | None = None) -> Notification | None:
    """Create an in-app notification (and its deliveries after commit). `ctx` has `.db` and
    `.after_commit` (a request context, or a job's unit of work). Returns None when de-duplicated."""
    db = ctx.db
    since = utcnow() - DEDUP_WINDOW
    duplicate = db.scalar(
        select(Notification.id).where(
            Notification.user_id == user_id, Notification.type == type,
            Notification.resource_type.is_(None) if resource_type is None else Notification.resource_type == resource_type,
            Notification.resource_id.is_(None) if resource_id is None else Notification.resource_id == resource_id,
            Notification.created_at >= since,
        ).limit(1)
    )
    if duplicate is not None:
        return None
    notification = Notification(user_id=user_id, type=type, title=title, body=body, resource_type=resource_type,
                                resource_id=resource_id, action_url=action_url, actor_id=actor_id, icon=icon)
    db.add(notification)
    db.flush()
    return notification
