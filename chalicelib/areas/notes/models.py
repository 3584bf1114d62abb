"""Notes: threaded notes on many resource types, with visibility levels and mentions."""
from __future__ import annotations

from sqlalchemy import JSON, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, id_column

# resource type -> the tool whose view permission it needs (docs/decisions/notes.md)
RESOURCE_TOOLS = {
    "person": "performance", "candidate": "performance", "scorecard": "performance", "review": "performance",
    "deal": "deals", "company": "deals", "contact": "deals", "announcement": "announcements", "task": "tasks",
    "project": "projects", "budget": "budgets", "invoice": "invoices", "proposal": "proposals",
}
RESOURCE_TYPES = tuple(RESOURCE_TOOLS)


class Note(Timestamps, Base):
    __tablename__ = "notes"
    __table_args__ = (Index("ix_notes_resource_created", "resource_type", "resource_id", "created_at"),)

    id: Mapped[str] = id_column()
    resource_type: Mapped[str] = mapped_column(String(20), nullable=False)
    resource_id: Mapped[str] = mapped_column(String(36), nullable=False)
    author_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    content: Mapped[str] = mapped_column(Text, nullable=False)
    visibility: Mapped[list] = mapped_column(JSON, nullable=False)
    mentions: Mapped[list] = mapped_column(JSON, nullable=False)
    parent_id: Mapped[str | None] = mapped_column(ForeignKey("notes.id", ondelete="CASCADE"), index=True)
