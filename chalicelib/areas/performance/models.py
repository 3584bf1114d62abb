"""Performance: review cycles, review templates with KPI items assigned to users, reviews with KPI ratings
and goals, peer feedback requests and their responses."""

from datetime import date, datetime

from sqlalchemy import Boolean, Date, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Created, Timestamps, UTCDateTime, id_column

CYCLE_TYPES = ("quarterly", "annual")
CYCLE_STATUSES = ("draft", "open", "closed")
REVIEW_STATUSES = ("draft", "self_assessment", "in_review", "ready_for_review", "completed")
GOAL_STATUSES = ("completed", "not_completed")
# The ratings a KPI or a feedback area takes, lowest first (docs/decisions/performance.md)
RATINGS = ("not_achieving", "developing", "achieving", "exceeding")
PASSING_RATINGS = ("achieving", "exceeding")
FEEDBACK_AREAS = ("organisation", "performance", "communication", "development", "automation")
FEEDBACK_COMMENTS = ("organisation", "performance", "automation")


class ReviewCycle(Timestamps, Base):
    __tablename__ = "review_cycles"
    __table_args__ = (Index("ix_review_cycles_status", "status"),)

    id: Mapped[str] = id_column()
    type: Mapped[str] = mapped_column(String(20), nullable=False)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    period_start: Mapped[date] = mapped_column(Date, nullable=False)
    period_end: Mapped[date] = mapped_column(Date, nullable=False)
    due_date: Mapped[date | None] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="draft")
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class ReviewTemplate(Timestamps, Base):
    __tablename__ = "review_templates"

    id: Mapped[str] = id_column()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)


class ReviewTemplateItem(Base):
    __tablename__ = "review_template_items"

    id: Mapped[str] = id_column()
    template_id: Mapped[str] = mapped_column(ForeignKey("review_templates.id", ondelete="CASCADE"), nullable=False,
                                             index=True)
    area: Mapped[str] = mapped_column(String(200), nullable=False)
    label: Mapped[str] = mapped_column(String(500), nullable=False)
    is_mandatory: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    sort_order: Mapped[int] = mapped_column(Integer, nullable=False, default=0)


class ReviewTemplateAssignment(Created, Base):
    """The review template of a user (one per user)."""

    __tablename__ = "review_template_assignments"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    template_id: Mapped[str] = mapped_column(ForeignKey("review_templates.id", ondelete="CASCADE"), nullable=False,
                                             index=True)


class Review(Timestamps, Base):
    __tablename__ = "reviews"
    __table_args__ = (UniqueConstraint("cycle_id", "user_id", name="uq_reviews_cycle_user"),
                      Index("ix_reviews_user_status", "user_id", "status"),
                      Index("ix_reviews_reviewer_status", "reviewer_id", "status"))

    id: Mapped[str] = id_column()
    cycle_id: Mapped[str] = mapped_column(ForeignKey("review_cycles.id", ondelete="CASCADE"), nullable=False)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    reviewer_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="draft")
    strengths: Mapped[str | None] = mapped_column(Text)
    growth_areas: Mapped[str | None] = mapped_column(Text)
    discussion_topics: Mapped[str | None] = mapped_column(Text)
    reviewer_notes: Mapped[str | None] = mapped_column(Text)
    action_items: Mapped[str | None] = mapped_column(Text)
    kpi_pass_count: Mapped[int | None] = mapped_column(Integer)
    kpi_total_count: Mapped[int | None] = mapped_column(Integer)
    kpi_passed: Mapped[bool | None] = mapped_column(Boolean)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class ReviewKpiRating(Base):
    __tablename__ = "review_kpi_ratings"

    id: Mapped[str] = id_column()
    review_id: Mapped[str] = mapped_column(ForeignKey("reviews.id", ondelete="CASCADE"), nullable=False, index=True)
    template_item_id: Mapped[str | None] = mapped_column(
        ForeignKey("review_template_items.id", ondelete="SET NULL"))
    area: Mapped[str] = mapped_column(String(200), nullable=False)
    label: Mapped[str] = mapped_column(String(500), nullable=False)
    is_mandatory: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    rating: Mapped[str | None] = mapped_column(String(30))
    notes: Mapped[str | None] = mapped_column(Text)
    sort_order: Mapped[int] = mapped_column(Integer, nullable=False, default=0)


class ReviewGoal(Created, Base):
    __tablename__ = "review_goals"

    id: Mapped[str] = id_column()
    review_id: Mapped[str] = mapped_column(ForeignKey("reviews.id", ondelete="CASCADE"), nullable=False, index=True)
    goal: Mapped[str] = mapped_column(Text, nullable=False)
    success_measures: Mapped[str | None] = mapped_column(Text)
    support_needed: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str | None] = mapped_column(String(20))
    sort_order: Mapped[int] = mapped_column(Integer, nullable=False, default=0)


class FeedbackRequest(Created, Base):
    __tablename__ = "feedback_requests"
    __table_args__ = (UniqueConstraint("cycle_id", "subject_id", "reviewer_id", name="uq_feedback_requests_pair"),
                      Index("ix_feedback_requests_reviewer_status", "reviewer_id", "status"),
                      Index("ix_feedback_requests_subject", "subject_id"))

    id: Mapped[str] = id_column()
    cycle_id: Mapped[str] = mapped_column(ForeignKey("review_cycles.id", ondelete="CASCADE"), nullable=False)
    subject_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    reviewer_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    requested_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    due_date: Mapped[date | None] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="pending")
    submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class FeedbackResponse(Base):
    """A response: ratings and comments only. It carries no reviewer and no time of its own, so a summary
    cannot tie a comment to a person (the request, which names the reviewer, is never read with it)."""

    __tablename__ = "feedback_responses"

    id: Mapped[str] = id_column()
    request_id: Mapped[str] = mapped_column(ForeignKey("feedback_requests.id", ondelete="CASCADE"), nullable=False,
                                            unique=True)
    organisation_rating: Mapped[str | None] = mapped_column(String(30))
    performance_rating: Mapped[str | None] = mapped_column(String(30))
    communication_rating: Mapped[str | None] = mapped_column(String(30))
    development_rating: Mapped[str | None] = mapped_column(String(30))
    automation_rating: Mapped[str | None] = mapped_column(String(30))
    organisation_comment: Mapped[str | None] = mapped_column(Text)
    performance_comment: Mapped[str | None] = mapped_column(Text)
    automation_comment: Mapped[str | None] = mapped_column(Text)
    overall_comment: Mapped[str | None] = mapped_column(Text)
