"""The portal's own records: portal users' notifications and preferences, QBRs with their sections, client
goals and the client questionnaire (decisions.md section 6; docs/decisions/portal.md)."""

from datetime import datetime
from decimal import Decimal

from sqlalchemy import Boolean, ForeignKey, Index, Integer, Numeric, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import (Base, Created, Timestamps, UTCDateTime, created_at_column, cross_area_key,
                                id_column, updated_at_column)


class PortalNotification(Created, Base):
    """A notification of one portal user (not a staff user) of one company."""
    __tablename__ = "portal_notifications"
    __table_args__ = (Index("ix_portal_notifications_recipient", "company_id", "portal_user_id", "created_at"),
                      # withdrawn by their record (portal_0003: withdraw_notices)
                      Index("ix_portal_notifications_resource", "resource_type", "resource_id"))

    id: Mapped[str] = id_column()
    company_id: Mapped[str] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"), nullable=False)
    portal_user_id: Mapped[str] = mapped_column(String(100), nullable=False)
    type: Mapped[str] = mapped_column(String(100), nullable=False)
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    body: Mapped[str | None] = mapped_column(Text)
    resource_type: Mapped[str | None] = mapped_column(String(50))
    resource_id: Mapped[str | None] = mapped_column(String(36))
    action_url: Mapped[str | None] = mapped_column(Text)
    is_read: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    read_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    archived: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    archived_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class PortalNotificationPreference(Base):
    __tablename__ = "portal_notification_preferences"

    company_id: Mapped[str] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"), primary_key=True)
    portal_user_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    notification_type: Mapped[str] = mapped_column(String(100), primary_key=True)
    channel_in_app: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    channel_email: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    updated_at: Mapped[datetime] = updated_at_column()


class PortalUser(Base):
    """A portal user the portal worker has called for (X-Portal-User-Id), with the e-mail address it sent
    (X-Portal-User-Email): the recipients of the company's portal notifications."""
    __tablename__ = "portal_users"

    company_id: Mapped[str] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"), primary_key=True)
    # indexed alone too: recording a user forgets it at the other companies (portal_0003)
    portal_user_id: Mapped[str] = mapped_column(String(100), primary_key=True, index=True)
    email: Mapped[str | None] = mapped_column(String(320))
    role: Mapped[str | None] = mapped_column(String(20))
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = updated_at_column()


class PortalSubmission(Base):
    """What a portal user submitted (`task`: a request, `note`: a note), so that the agency's update or reply
    is notified to them."""
    __tablename__ = "portal_submissions"

    record_type: Mapped[str] = mapped_column(String(20), primary_key=True)
    record_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    company_id: Mapped[str] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"), nullable=False, index=True)
    portal_user_id: Mapped[str] = mapped_column(String(100), nullable=False)
    created_at: Mapped[datetime] = created_at_column()


class Qbr(Timestamps, Base):
    """A quarterly business review of a client company; the portal shows it once `presented`."""
    __tablename__ = "qbrs"

    id: Mapped[str] = id_column()
    company_id: Mapped[str] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"), nullable=False, index=True)
    title: Mapped[str] = mapped_column(String(200), nullable=False)
    quarter: Mapped[str] = mapped_column(String(7), nullable=False)  # YYYY-Qn
    summary: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="draft")  # draft | presented
    presented_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class QbrSection(Timestamps, Base):
    __tablename__ = "qbr_sections"

    id: Mapped[str] = id_column()
    qbr_id: Mapped[str] = mapped_column(ForeignKey("qbrs.id", ondelete="CASCADE"), nullable=False, index=True)
    section_key: Mapped[str] = mapped_column(String(100), nullable=False)
    title: Mapped[str] = mapped_column(String(200), nullable=False)
    content: Mapped[str] = mapped_column(Text, nullable=False, default="")
    portal_visible: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    position: Mapped[int] = mapped_column(Integer, nullable=False, default=0)


class ClientGoal(Timestamps, Base):
    __tablename__ = "client_goals"

    id: Mapped[str] = id_column()
    company_id: Mapped[str] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"), nullable=False, index=True)
    metric: Mapped[str] = mapped_column(String(200), nullable=False)
    metric_key: Mapped[str | None] = mapped_column(String(100))
    metric_label: Mapped[str | None] = mapped_column(String(200))
    target: Mapped[Decimal | None] = mapped_column(Numeric(16, 2))
    unit: Mapped[str | None] = mapped_column(String(50))
    period: Mapped[str | None] = mapped_column(String(20))
    source: Mapped[str] = mapped_column(String(20), nullable=False, default="staff")  # staff | questionnaire
    created_by: Mapped[str | None] = mapped_column(String(100))


class ClientQuestionnaire(Base):
    """The client's questionnaire answers, one per company."""
    __tablename__ = "client_questionnaires"

    company_id: Mapped[str] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"), primary_key=True)
    financial_year_start: Mapped[str | None] = mapped_column(String(100))
    financial_year_end: Mapped[str | None] = mapped_column(String(100))
    key_trading_periods: Mapped[str | None] = mapped_column(Text)
    channel_online_pct: Mapped[Decimal | None] = mapped_column(Numeric(5, 2))
    channel_instore_pct: Mapped[Decimal | None] = mapped_column(Numeric(5, 2))
    channel_wholesale_pct: Mapped[Decimal | None] = mapped_column(Numeric(5, 2))
    celebration_vision: Mapped[str | None] = mapped_column(Text)
    growth_priorities_text: Mapped[str | None] = mapped_column(Text)
    company_direction_text: Mapped[str | None] = mapped_column(Text)
    completed_by: Mapped[str | None] = mapped_column(String(100))
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = updated_at_column()


# ---------------------------------------------------------------- connected ad platforms and their results
# (migration branch `adplatforms`; docs/decisions/portal.md, "Connected platforms and results")

from datetime import date as _date  # noqa: E402

from sqlalchemy import BigInteger, Date, UniqueConstraint  # noqa: E402


class AdConnection(Timestamps, Base):
    """A client's connected ad platform or store account. `secret` is the credentials JSON encrypted with
    SECRETS_KEY (core.crypto), never answered; `account_id` is the platform's non-secret account id.
    `agency_managed` connections are made by staff and cannot be removed from the portal."""
    __tablename__ = "ad_connections"
    __table_args__ = (UniqueConstraint("company_id", "platform", "account_id", name="uq_ad_connections_account"),)

    id: Mapped[str] = id_column()
    company_id: Mapped[str] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"), nullable=False, index=True)
    platform: Mapped[str] = mapped_column(String(20), nullable=False)  # google_ads | meta_ads | shopify
    display_name: Mapped[str] = mapped_column(String(200), nullable=False)
    account_id: Mapped[str] = mapped_column(String(120), nullable=False)
    account_name: Mapped[str | None] = mapped_column(String(300))
    currency: Mapped[str | None] = mapped_column(String(10))
    secret: Mapped[str] = mapped_column(Text, nullable=False)
    agency_managed: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="connected")  # connected | error
    last_synced_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_sync_error: Mapped[str | None] = mapped_column(Text)  # what staff read: the platform's or our own words
    # what the client reads: the platform's refusal of their credentials as it is, any other failure (the
    # agency's configuration, a platform outage) in words of ours that name nothing of the agency's set-up
    client_sync_error: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[str | None] = mapped_column(String(120))  # portal:<portal user id> or a staff user id
    backfilled_at: Mapped[datetime | None] = mapped_column(UTCDateTime())  # the scheduled job's first long read


class AdDailyMetric(Base):
    """One synced day of one campaign of a connection (Shopify: campaign `store`); a re-sync upserts."""
    __tablename__ = "ad_daily_metrics"
    __table_args__ = (UniqueConstraint("connection_id", "campaign_id", "date", name="uq_ad_daily_metrics_day"),
                      Index("ix_ad_daily_metrics_company_date", "company_id", "date"))

    id: Mapped[str] = id_column()
    connection_id: Mapped[str] = mapped_column(ForeignKey("ad_connections.id", ondelete="CASCADE"), nullable=False)
    company_id: Mapped[str] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"), nullable=False)
    platform: Mapped[str] = mapped_column(String(20), nullable=False)
    campaign_id: Mapped[str] = mapped_column(String(100), nullable=False)
    campaign_name: Mapped[str] = mapped_column(String(300), nullable=False)
    date: Mapped[_date] = mapped_column(Date, nullable=False)
    spend: Mapped[Decimal] = mapped_column(Numeric(16, 2), nullable=False, default=0)
    impressions: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    clicks: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    conversions: Mapped[Decimal] = mapped_column(Numeric(16, 2), nullable=False, default=0)
    conversion_value: Mapped[Decimal] = mapped_column(Numeric(16, 2), nullable=False, default=0)
    orders: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    revenue: Mapped[Decimal] = mapped_column(Numeric(16, 2), nullable=False, default=0)
    synced_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
