"""Portal: portal users' notifications and preferences, QBRs and sections, client goals, questionnaires.

Revision ID: portal_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "portal_0001"
down_revision = "core_0001"
branch_labels = ("portal",)
depends_on = "deals_0001"


def _company(table: str, primary_key: bool = False) -> sa.Column:
    return sa.Column("company_id", sa.String(36),
                     sa.ForeignKey("companies.id", ondelete="CASCADE", name=f"fk_{table}_company_id_companies"),
                     nullable=False, primary_key=primary_key)


def _stamps() -> list:
    return [sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
            sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now())]


def upgrade() -> None:
    op.create_table(
        "portal_notifications",
        sa.Column("id", sa.String(36), primary_key=True),
        _company("portal_notifications"),
        sa.Column("portal_user_id", sa.String(100), nullable=False),
        sa.Column("type", sa.String(100), nullable=False),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("body", sa.Text()),
        sa.Column("resource_type", sa.String(50)),
        sa.Column("resource_id", sa.String(36)),
        sa.Column("action_url", sa.Text()),
        sa.Column("is_read", sa.Boolean(), nullable=False),
        sa.Column("read_at", UTCDateTime()),
        sa.Column("archived", sa.Boolean(), nullable=False),
        sa.Column("archived_at", UTCDateTime()),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_portal_notifications_recipient", "portal_notifications",
                    ["company_id", "portal_user_id", "created_at"])
    op.create_table(
        "portal_notification_preferences",
        _company("portal_notification_preferences", primary_key=True),
        sa.Column("portal_user_id", sa.String(100), primary_key=True),
        sa.Column("notification_type", sa.String(100), primary_key=True),
        sa.Column("channel_in_app", sa.Boolean(), nullable=False),
        sa.Column("channel_email", sa.Boolean(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_table(
        "qbrs",
        sa.Column("id", sa.String(36), primary_key=True),
        _company("qbrs"),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("quarter", sa.String(7), nullable=False),
        sa.Column("summary", sa.Text()),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("presented_at", UTCDateTime()),
        sa.Column("created_by", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_qbrs_created_by_users")),
        *_stamps(),
    )
    op.create_index("ix_qbrs_company_id", "qbrs", ["company_id"])
    op.create_table(
        "qbr_sections",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("qbr_id", sa.String(36),
                  sa.ForeignKey("qbrs.id", ondelete="CASCADE", name="fk_qbr_sections_qbr_id_qbrs"), nullable=False),
        sa.Column("section_key", sa.String(100), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("portal_visible", sa.Boolean(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        *_stamps(),
    )
    op.create_index("ix_qbr_sections_qbr_id", "qbr_sections", ["qbr_id"])
    op.create_table(
        "client_goals",
        sa.Column("id", sa.String(36), primary_key=True),
        _company("client_goals"),
        sa.Column("metric", sa.String(200), nullable=False),
        sa.Column("metric_key", sa.String(100)),
        sa.Column("metric_label", sa.String(200)),
        sa.Column("target", sa.Numeric(16, 2)),
        sa.Column("unit", sa.String(50)),
        sa.Column("period", sa.String(20)),
        sa.Column("source", sa.String(20), nullable=False),
        sa.Column("created_by", sa.String(100)),
        *_stamps(),
    )
    op.create_index("ix_client_goals_company_id", "client_goals", ["company_id"])
    op.create_table(
        "client_questionnaires",
        _company("client_questionnaires", primary_key=True),
        sa.Column("financial_year_start", sa.String(100)),
        sa.Column("financial_year_end", sa.String(100)),
        sa.Column("key_trading_periods", sa.Text()),
        sa.Column("channel_online_pct", sa.Numeric(5, 2)),
        sa.Column("channel_instore_pct", sa.Numeric(5, 2)),
        sa.Column("channel_wholesale_pct", sa.Numeric(5, 2)),
        sa.Column("celebration_vision", sa.Text()),
        sa.Column("growth_priorities_text", sa.Text()),
        sa.Column("company_direction_text", sa.Text()),
        sa.Column("completed_by", sa.String(100)),
        sa.Column("completed_at", UTCDateTime()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )


def downgrade() -> None:
    for table in ("client_questionnaires", "client_goals", "qbr_sections", "qbrs", "portal_notification_preferences",
                  "portal_notifications"):
        op.drop_table(table)
