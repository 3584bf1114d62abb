"""Research: pre-call research briefs for deals and companies.

Revision ID: research_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "research_0001"
down_revision = "core_0001"
branch_labels = ("research",)
depends_on = "deals_0001"


def upgrade() -> None:
    t = "research_briefs"
    op.create_table(
        t,
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("entity_type", sa.String(10), nullable=False),
        sa.Column("entity_id", sa.String(36), nullable=False),
        sa.Column("deal_id", sa.String(36),
                  sa.ForeignKey("deals.id", ondelete="CASCADE", name="fk_research_briefs_deal_id_deals")),
        sa.Column("company_id", sa.String(36),
                  sa.ForeignKey("companies.id", ondelete="CASCADE", name="fk_research_briefs_company_id_companies")),
        sa.Column("url", sa.String(2000), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("platform_detected", sa.Boolean(), nullable=False),
        sa.Column("platform", sa.String(50)),
        sa.Column("brief_content", sa.JSON()),
        sa.Column("error", sa.Text()),
        sa.Column("refreshed_from_id", sa.String(36),
                  sa.ForeignKey("research_briefs.id", ondelete="SET NULL",
                                name="fk_research_briefs_refreshed_from_id_research_briefs")),
        sa.Column("created_by", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_research_briefs_created_by_users")),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.CheckConstraint("entity_type IN ('deal', 'company')", name="ck_research_briefs_entity_type"),
        sa.CheckConstraint("status IN ('completed', 'failed')", name="ck_research_briefs_status"),
    )
    op.create_index("ix_research_briefs_company_created", t, ["company_id", "created_at"])
    op.create_index("ix_research_briefs_deal_created", t, ["deal_id", "created_at"])


def downgrade() -> None:
    op.drop_table("research_briefs")
