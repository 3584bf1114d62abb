"""Announcements: company announcements, their read receipts and their distributions to outside channels."""

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, UTCDateTime, created_at_column, id_column

CATEGORIES = ("process", "team", "client", "company")
CHANNELS = ("chat", "calendar", "email")


class Announcement(Timestamps, Base):
    __tablename__ = "announcements"
    __table_args__ = (Index("ix_announcements_created_at", "created_at"),)

    id: Mapped[str] = id_column()
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    content: Mapped[str] = mapped_column(Text, nullable=False)
    category: Mapped[str] = mapped_column(String(20), nullable=False)
    attachment_url: Mapped[str | None] = mapped_column(Text)
    attachment_name: Mapped[str | None] = mapped_column(String(500))
    author_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class AnnouncementReceipt(Base):
    """A read receipt: one per announcement and user (the first read)."""

    __tablename__ = "announcement_reads"
    __table_args__ = (Index("ix_announcement_reads_user_id", "user_id"),)

    announcement_id: Mapped[str] = mapped_column(ForeignKey("announcements.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    read_at: Mapped[datetime] = created_at_column()


class AnnouncementDistribution(Base):
    """One channel's outcome of one distribute call: `sent` (with the provider's id) or `failed` (with the error)."""

    __tablename__ = "announcement_distributions"
    __table_args__ = (Index("ix_announcement_distributions_announcement", "announcement_id", "sent_at"),)

    id: Mapped[str] = id_column()
    announcement_id: Mapped[str] = mapped_column(ForeignKey("announcements.id", ondelete="CASCADE"), nullable=False)
    channel: Mapped[str] = mapped_column(String(20), nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False)
    external_id: Mapped[str | None] = mapped_column(String(500))
    error: Mapped[str | None] = mapped_column(Text)
    sent_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    sent_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
