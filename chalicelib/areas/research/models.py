"""Research briefs: pre-call briefs for a deal or a company, generated from a website (history kept)."""
from __future__ import annotations

from sqlalchemy import JSON, Boolean, CheckConstraint, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, cross_area_key, id_column

ENTITY_TYPES = ("deal", "company")
STATUSES = ("completed", "failed")


class ResearchBrief(Timestamps, Base):
    __tablename__ = "research_briefs"
    __table_args__ = (
        Index("ix_research_briefs_company_created", "company_id", "created_at"),
        Index("ix_research_briefs_deal_created", "deal_id", "created_at"),
        CheckConstraint("entity_type IN ('deal', 'company')", name="ck_research_briefs_entity_type"),
        CheckConstraint("status IN ('completed', 'failed')", name="ck_research_briefs_status"),
    )

    id: Mapped[str] = id_column()
    entity_type: Mapped[str] = mapped_column(String(10), nullable=False)
    entity_id: Mapped[str] = mapped_column(String(36), nullable=False)
    deal_id: Mapped[str | None] = mapped_column(cross_area_key("deals.id", ondelete="CASCADE"))
    company_id: Mapped[str | None] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"))
    url: Mapped[str] = mapped_column(String(2000), nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False)
    platform_detected: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    platform: Mapped[str | None] = mapped_column(String(50))
    brief_content: Mapped[dict | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(Text)
    refreshed_from_id: Mapped[str | None] = mapped_column(ForeignKey("research_briefs.id", ondelete="SET NULL"))
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
