"""Client onboarding: templates with stages and milestones, and each client company's progress through one."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, UTCDateTime, cross_area_key, id_column


class OnboardingTemplate(Timestamps, Base):
    __tablename__ = "onboarding_templates"

    id: Mapped[str] = id_column()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    is_default: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class OnboardingStage(Timestamps, Base):
    __tablename__ = "onboarding_stages"

    id: Mapped[str] = id_column()
    template_id: Mapped[str] = mapped_column(ForeignKey("onboarding_templates.id", ondelete="CASCADE"),
                                             nullable=False, index=True)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    stage_type: Mapped[str] = mapped_column(String(100), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    color: Mapped[str | None] = mapped_column(String(50))
    sort_order: Mapped[int] = mapped_column(Integer, nullable=False, default=0)


class OnboardingMilestone(Timestamps, Base):
    __tablename__ = "onboarding_milestones"

    id: Mapped[str] = id_column()
    stage_id: Mapped[str] = mapped_column(ForeignKey("onboarding_stages.id", ondelete="CASCADE"),
                                          nullable=False, index=True)
    title: Mapped[str] = mapped_column(String(300), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    is_required: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    auto_source: Mapped[str | None] = mapped_column(String(100))
    sort_order: Mapped[int] = mapped_column(Integer, nullable=False, default=0)


class OnboardingProgress(Timestamps, Base):
    """A client company's onboarding: the template it follows, when it started and completed."""
    __tablename__ = "onboarding_progress"
    __table_args__ = (UniqueConstraint("company_id", name="uq_onboarding_progress_company_id"),)

    id: Mapped[str] = id_column()
    company_id: Mapped[str] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"), nullable=False)
    template_id: Mapped[str] = mapped_column(ForeignKey("onboarding_templates.id"), nullable=False,
                                             index=True)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class MilestoneCompletion(Timestamps, Base):
    __tablename__ = "onboarding_completions"
    __table_args__ = (UniqueConstraint("progress_id", "milestone_id",
                                       name="uq_onboarding_completions_progress_milestone"),)

    id: Mapped[str] = id_column()
    progress_id: Mapped[str] = mapped_column(ForeignKey("onboarding_progress.id", ondelete="CASCADE"),
                                             nullable=False)
    milestone_id: Mapped[str] = mapped_column(ForeignKey("onboarding_milestones.id", ondelete="CASCADE"),
                                              nullable=False, index=True)
    completed_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    source: Mapped[str] = mapped_column(String(100), nullable=False, default="manual")
