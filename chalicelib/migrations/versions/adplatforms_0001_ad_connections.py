"""Ad platforms of the client portal: connected accounts (credentials encrypted) and synced daily metrics per
connection, campaign and day.

Revision ID: adplatforms_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "adplatforms_0001"
down_revision = "core_0001"
branch_labels = ("adplatforms",)
depends_on = ("portal_0001", "clients_0001")


def upgrade() -> None:
    op.create_table(
        "ad_connections",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("company_id", sa.String(36),
                  sa.ForeignKey("companies.id", ondelete="CASCADE", name="fk_ad_connections_company_id_companies"),
                  nullable=False),
        sa.Column("platform", sa.String(20), nullable=False),
        sa.Column("display_name", sa.String(200), nullable=False),
        sa.Column("account_id", sa.String(120), nullable=False),
        sa.Column("account_name", sa.String(300)),
        sa.Column("currency", sa.String(10)),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("agency_managed", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("last_synced_at", UTCDateTime()),
        sa.Column("last_sync_error", sa.Text()),
        sa.Column("created_by", sa.String(100)),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.UniqueConstraint("company_id", "platform", "account_id", name="uq_ad_connections_account"),
    )
    op.create_index("ix_ad_connections_company_id", "ad_connections", ["company_id"])
    op.create_table(
        "ad_daily_metrics",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("connection_id", sa.String(36),
                  sa.ForeignKey("ad_connections.id", ondelete="CASCADE",
                                name="fk_ad_daily_metrics_connection_id_ad_connections"), nullable=False),
        sa.Column("company_id", sa.String(36),
                  sa.ForeignKey("companies.id", ondelete="CASCADE", name="fk_ad_daily_metrics_company_id_companies"),
                  nullable=False),
        sa.Column("platform", sa.String(20), nullable=False),
        sa.Column("campaign_id", sa.String(100), nullable=False),
        sa.Column("campaign_name", sa.String(300), nullable=False),
        sa.Column("date", sa.Date(), nullable=False),
        sa.Column("spend", sa.Numeric(16, 2), nullable=False),
        sa.Column("impressions", sa.BigInteger(), nullable=False),
        sa.Column("clicks", sa.BigInteger(), nullable=False),
        sa.Column("conversions", sa.Numeric(16, 2), nullable=False),
        sa.Column("conversion_value", sa.Numeric(16, 2), nullable=False),
        sa.Column("orders", sa.Integer(), nullable=False),
        sa.Column("revenue", sa.Numeric(16, 2), nullable=False),
        sa.Column("synced_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("connection_id", "campaign_id", "date", name="uq_ad_daily_metrics_day"),
    )
    op.create_index("ix_ad_daily_metrics_company_date", "ad_daily_metrics", ["company_id", "date"])


def downgrade() -> None:
    op.drop_index("ix_ad_daily_metrics_company_date", table_name="ad_daily_metrics")
    op.drop_table("ad_daily_metrics")
    op.drop_index("ix_ad_connections_company_id", table_name="ad_connections")
    op.drop_table("ad_connections")
