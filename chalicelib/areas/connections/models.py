"""Connections: the stored link to each external provider (secrets encrypted with SECRETS_KEY), the OAuth
states of the ledger's authorisation flow, and users' ids in the ledger and the planner.

The providers' sandbox tables (ledger invoices, planner bookings) are created by this area's migration too;
their models live beside their adapters and are imported here so that the schema check sees them."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Created, UTCDateTime, updated_at_column
from chalicelib.providers.ledger.models import LedgerSandboxInvoice  # noqa: F401 (migrated here)
from chalicelib.providers.planner.models import PlannerSandboxBooking  # noqa: F401 (migrated here)

PROVIDERS = ("ledger", "planner", "chat")


class Connection(Base):
    __tablename__ = "connections"

    provider: Mapped[str] = mapped_column(String(20), primary_key=True)
    org_name: Mapped[str | None] = mapped_column(String(255))
    external_id: Mapped[str | None] = mapped_column(String(100))  # ledger tenant, planner organisation, chat team
    secret: Mapped[str] = mapped_column(Text, nullable=False)  # core.crypto.encrypt(JSON of the credentials)
    settings: Mapped[dict | None] = mapped_column(JSON)  # not secret: the chat channel
    connected_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    connected_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    token_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = updated_at_column()


class OAuthState(Created, Base):
    """A state handed to the ledger's consent page: one use, by the executive who asked, for 10 minutes."""
    __tablename__ = "connection_oauth_states"

    state: Mapped[str] = mapped_column(String(64), primary_key=True)
    provider: Mapped[str] = mapped_column(String(20), nullable=False)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)


class UserMapping(Base):
    __tablename__ = "user_mappings"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    ledger_id: Mapped[str | None] = mapped_column(String(100))
    planner_id: Mapped[str | None] = mapped_column(String(100))
    updated_at: Mapped[datetime] = updated_at_column()
