"""Pages: the page tree, per-user favourites, discussions with comments, and version snapshots."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Float, ForeignKey, Index, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Created, Timestamps, UTCDateTime, id_column


class Page(Timestamps, Base):
    __tablename__ = "pages"
    __table_args__ = (
        Index("ix_pages_entity", "entity_type", "entity_id"),
        Index("ix_pages_archived_parent_position", "is_archived", "parent_id", "position"),
    )

    id: Mapped[str] = id_column()
    title: Mapped[str] = mapped_column(String(500), nullable=False, default="Untitled")
    icon: Mapped[str | None] = mapped_column(String(200))
    parent_id: Mapped[str | None] = mapped_column(ForeignKey("pages.id", ondelete="SET NULL"), index=True)
    position: Mapped[float] = mapped_column(Float, nullable=False, default=0)
    entity_type: Mapped[str | None] = mapped_column(String(50))
    entity_id: Mapped[str | None] = mapped_column(String(36))
    content: Mapped[str] = mapped_column(Text, nullable=False, default="")
    content_rich: Mapped[str | None] = mapped_column(Text)
    # The collaborative editor's binary document state; stale once content_rich is replaced.
    collab_snapshot: Mapped[bytes | None] = mapped_column(LargeBinary)
    cover_image: Mapped[str | None] = mapped_column(Text)
    is_archived: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    full_width: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    small_text: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    lock_page: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    toc: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    text_style: Mapped[str] = mapped_column(String(50), nullable=False, default="default")
    is_published: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    published_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    updated_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class PageFavourite(Created, Base):
    __tablename__ = "page_favourites"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    page_id: Mapped[str] = mapped_column(ForeignKey("pages.id", ondelete="CASCADE"), primary_key=True, index=True)


class PageDiscussion(Timestamps, Base):
    __tablename__ = "page_discussions"

    id: Mapped[str] = id_column()
    page_id: Mapped[str] = mapped_column(ForeignKey("pages.id", ondelete="CASCADE"), nullable=False, index=True)
    user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    document_content: Mapped[str | None] = mapped_column(Text)
    document_content_rich: Mapped[str | None] = mapped_column(Text)
    is_resolved: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)


class PageComment(Timestamps, Base):
    __tablename__ = "page_comments"

    id: Mapped[str] = id_column()
    discussion_id: Mapped[str] = mapped_column(ForeignKey("page_discussions.id", ondelete="CASCADE"),
                                               nullable=False, index=True)
    user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    content: Mapped[str] = mapped_column(Text, nullable=False)
    content_rich: Mapped[str | None] = mapped_column(Text)
    is_edited: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)


class PageVersion(Created, Base):
    __tablename__ = "page_versions"
    __table_args__ = (Index("ix_page_versions_page_created", "page_id", "created_at"),)

    id: Mapped[str] = id_column()
    page_id: Mapped[str] = mapped_column(ForeignKey("pages.id", ondelete="CASCADE"), nullable=False)
    user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    content: Mapped[str | None] = mapped_column(Text)
    content_rich: Mapped[str | None] = mapped_column(Text)
