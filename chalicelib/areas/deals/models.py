"""Companies, contacts and deals: the sales directory and pipeline records."""
from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import JSON, ForeignKey, Numeric, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, UTCDateTime, id_column

COMPANY_STATUSES = ("prospect", "client")
DEAL_STATUSES = ("open", "won", "lost")


class Company(Timestamps, Base):
    __tablename__ = "companies"

    id: Mapped[str] = id_column()
    name: Mapped[str] = mapped_column(String(200), nullable=False, index=True)
    domain: Mapped[str | None] = mapped_column(String(255), index=True)
    website: Mapped[str | None] = mapped_column(String(500))
    industry: Mapped[str | None] = mapped_column(String(200))
    phone: Mapped[str | None] = mapped_column(String(50))
    address: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="prospect")
    owner_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    network_data: Mapped[dict | None] = mapped_column(JSON)
    network_enriched_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_by: Mapped[str | None] = mapped_column(String(36))


class Contact(Timestamps, Base):
    __tablename__ = "contacts"

    id: Mapped[str] = id_column()
    first_name: Mapped[str] = mapped_column(String(200), nullable=False)
    last_name: Mapped[str | None] = mapped_column(String(200))
    email: Mapped[str | None] = mapped_column(String(320), index=True)
    phone: Mapped[str | None] = mapped_column(String(50))
    job_title: Mapped[str | None] = mapped_column(String(200))
    company_id: Mapped[str | None] = mapped_column(ForeignKey("companies.id", ondelete="SET NULL"), index=True)
    network_url: Mapped[str | None] = mapped_column(String(500))
    network_data: Mapped[dict | None] = mapped_column(JSON)
    network_enriched_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_by: Mapped[str | None] = mapped_column(String(36))


class Deal(Timestamps, Base):
    __tablename__ = "deals"

    id: Mapped[str] = id_column()
    title: Mapped[str] = mapped_column(String(300), nullable=False)
    company_id: Mapped[str | None] = mapped_column(ForeignKey("companies.id"), index=True)
    contact_id: Mapped[str | None] = mapped_column(ForeignKey("contacts.id", ondelete="SET NULL"), index=True)
    owner_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    stage_id: Mapped[str | None] = mapped_column(ForeignKey("config_list_items.id", ondelete="SET NULL"), index=True)
    value: Mapped[Decimal | None] = mapped_column(Numeric(14, 2))
    currency: Mapped[str] = mapped_column(String(3), nullable=False, default="AUD")
    status: Mapped[str] = mapped_column(String(10), nullable=False, default="open", index=True)
    website: Mapped[str | None] = mapped_column(String(500))
    created_by: Mapped[str | None] = mapped_column(String(36))
