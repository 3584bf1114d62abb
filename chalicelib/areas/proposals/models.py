"""Proposals: templates, proposals (content in a page), approvals, pricing sections and items, public view
analytics and the password attempts of the public viewer. Money is Numeric (exact), never float."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Boolean, Date, Float, ForeignKey, Index, Integer, Numeric, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Created, Timestamps, UTCDateTime, cross_area_key, id_column

STATUSES = ("draft", "review", "changes_requested", "approved", "sent", "viewed", "accepted", "declined", "expired")


class ProposalTemplate(Timestamps, Base):
    __tablename__ = "proposal_templates"
    __table_args__ = (Index("ix_proposal_templates_active_category", "is_active", "category"),)

    id: Mapped[str] = id_column()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    category: Mapped[str | None] = mapped_column(String(100))
    content_rich: Mapped[str | None] = mapped_column(Text)
    brand_config: Mapped[str | None] = mapped_column(Text)
    variables_schema: Mapped[str | None] = mapped_column(Text)
    speaker_notes: Mapped[str | None] = mapped_column(Text)
    contract_template_id: Mapped[str | None] = mapped_column(String(36))
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class Proposal(Timestamps, Base):
    __tablename__ = "proposals"
    __table_args__ = (Index("ix_proposals_list_order", "created_at"),)

    id: Mapped[str] = id_column()
    title: Mapped[str] = mapped_column(String(300), nullable=False)
    deal_id: Mapped[str | None] = mapped_column(cross_area_key("deals.id", ondelete="SET NULL"), index=True)
    company_id: Mapped[str | None] = mapped_column(cross_area_key("companies.id", ondelete="SET NULL"), index=True)
    contact_id: Mapped[str | None] = mapped_column(cross_area_key("contacts.id", ondelete="SET NULL"))
    template_id: Mapped[str | None] = mapped_column(ForeignKey("proposal_templates.id", ondelete="SET NULL"))
    page_id: Mapped[str] = mapped_column(cross_area_key("pages.id"), nullable=False)
    status: Mapped[str] = mapped_column(String(30), nullable=False, default="draft", index=True)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    currency: Mapped[str] = mapped_column(String(3), nullable=False, default="AUD")
    total_amount: Mapped[Decimal | None] = mapped_column(Numeric(16, 2))
    valid_until: Mapped[date | None] = mapped_column(Date)
    speaker_notes: Mapped[str | None] = mapped_column(Text)
    brand_config: Mapped[str | None] = mapped_column(Text)
    share_token: Mapped[str | None] = mapped_column(String(64), unique=True)
    share_password: Mapped[str | None] = mapped_column(String(300))  # scrypt hash, never the password
    share_enabled: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    owner_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    viewed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    accepted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    declined_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    decline_reason: Mapped[str | None] = mapped_column(Text)
    responder_name: Mapped[str | None] = mapped_column(String(200))
    responder_email: Mapped[str | None] = mapped_column(String(320))
    contract_id: Mapped[str | None] = mapped_column(String(36))
    project_id: Mapped[str | None] = mapped_column(String(36))
    budget_id: Mapped[str | None] = mapped_column(String(36))
    invoice_id: Mapped[str | None] = mapped_column(String(36))


class ProposalApproval(Timestamps, Base):
    """A listed approver of a proposal (listed true, approved_at set when they approve in the current review
    round), or the approval of a proposals:manage holder when none is listed (listed false)."""
    __tablename__ = "proposal_approvals"
    __table_args__ = (UniqueConstraint("proposal_id", "user_id", name="uq_proposal_approvals_proposal_user"),
                      Index("ix_proposal_approvals_user_id", "user_id"))

    id: Mapped[str] = id_column()
    proposal_id: Mapped[str] = mapped_column(ForeignKey("proposals.id", ondelete="CASCADE"), nullable=False)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    listed: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    approved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    comments: Mapped[str | None] = mapped_column(Text)


class PricingSection(Base):
    __tablename__ = "proposal_pricing_sections"

    id: Mapped[str] = id_column()
    proposal_id: Mapped[str] = mapped_column(ForeignKey("proposals.id", ondelete="CASCADE"), nullable=False,
                                             index=True)
    title: Mapped[str] = mapped_column(String(300), nullable=False)
    position: Mapped[int] = mapped_column(Integer, nullable=False, default=0)


class PricingItem(Base):
    __tablename__ = "proposal_pricing_items"

    id: Mapped[str] = id_column()
    section_id: Mapped[str] = mapped_column(ForeignKey("proposal_pricing_sections.id", ondelete="CASCADE"),
                                            nullable=False, index=True)
    description: Mapped[str] = mapped_column(Text, nullable=False)
    service_type_id: Mapped[str | None] = mapped_column(String(36))
    quantity: Mapped[Decimal] = mapped_column(Numeric(12, 2), nullable=False)
    unit_price: Mapped[Decimal] = mapped_column(Numeric(14, 2), nullable=False)
    amount: Mapped[Decimal] = mapped_column(Numeric(16, 2), nullable=False)
    notes: Mapped[str | None] = mapped_column(Text)
    position: Mapped[int] = mapped_column(Integer, nullable=False, default=0)


class ProposalView(Timestamps, Base):
    """Time spent by one viewer session on one slide (the sum of the tracked deltas) and how many
    deltas were tracked."""
    __tablename__ = "proposal_views"
    __table_args__ = (UniqueConstraint("proposal_id", "session_id", "slide_index",
                                       name="uq_proposal_views_proposal_session_slide"),)

    id: Mapped[str] = id_column()
    proposal_id: Mapped[str] = mapped_column(ForeignKey("proposals.id", ondelete="CASCADE"), nullable=False)
    session_id: Mapped[str] = mapped_column(String(100), nullable=False)
    slide_index: Mapped[int] = mapped_column(Integer, nullable=False)
    duration_seconds: Mapped[float] = mapped_column(Float, nullable=False, default=0)
    events: Mapped[int] = mapped_column(Integer, nullable=False, default=0)


class ProposalPasswordAttempt(Created, Base):
    """A wrong password for a proposal's public viewer (throttling counts the recent ones)."""
    __tablename__ = "proposal_password_attempts"
    __table_args__ = (Index("ix_proposal_password_attempts_proposal_created", "proposal_id", "created_at"),)

    id: Mapped[str] = id_column()
    proposal_id: Mapped[str] = mapped_column(ForeignKey("proposals.id", ondelete="CASCADE"), nullable=False)
