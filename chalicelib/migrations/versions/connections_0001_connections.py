"""Connections: stored provider connections (encrypted secrets), OAuth states, user mappings, and the
ledger and planner sandboxes' tables.

Revision ID: connections_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "connections_0001"
down_revision = "core_0001"
branch_labels = ("connections",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "connections",
        sa.Column("provider", sa.String(20), primary_key=True),
        sa.Column("org_name", sa.String(255)),
        sa.Column("external_id", sa.String(100)),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("settings", sa.JSON()),
        sa.Column("connected_by", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_connections_connected_by_users")),
        sa.Column("connected_at", UTCDateTime(), nullable=False),
        sa.Column("token_expires_at", UTCDateTime()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_table(
        "connection_oauth_states",
        sa.Column("state", sa.String(64), primary_key=True),
        sa.Column("provider", sa.String(20), nullable=False),
        sa.Column("user_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_connection_oauth_states_user_id_users"),
                  nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_table(
        "user_mappings",
        sa.Column("user_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_user_mappings_user_id_users"),
                  primary_key=True),
        sa.Column("ledger_id", sa.String(100)),
        sa.Column("planner_id", sa.String(100)),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_table(
        "ledger_sandbox_invoices",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("invoice_number", sa.String(50), nullable=False),
        sa.Column("contact_name", sa.String(255), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("total", sa.Numeric(16, 2), nullable=False),
        sa.Column("amount_paid", sa.Numeric(16, 2), nullable=False),
        sa.Column("lines", sa.JSON(), nullable=False),
        sa.Column("payments", sa.JSON(), nullable=False),
        sa.Column("pdf", sa.LargeBinary(), nullable=False),
        sa.Column("emailed_at", UTCDateTime()),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_table(
        "planner_sandbox_bookings",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("person_id", sa.String(100), nullable=False),
        sa.Column("started_on", sa.Date(), nullable=False),
        sa.Column("ended_on", sa.Date(), nullable=False),
        sa.Column("minutes_per_day", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.String(100)),
        sa.Column("note", sa.Text()),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_planner_sandbox_bookings_person_id", "planner_sandbox_bookings", ["person_id"])


def downgrade() -> None:
    for table in ("planner_sandbox_bookings", "ledger_sandbox_invoices", "user_mappings", "connection_oauth_states",
                  "connections"):
        op.drop_table(table)
