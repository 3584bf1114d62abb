"""The uses of paid providers (AI, enrichment, SMS) per user, for their hourly allowances (core.allowance).

Revision ID: core_0004
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "core_0004"
down_revision = "core_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "provider_uses",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("key", sa.String(120), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_provider_uses_kind_key_created_at", "provider_uses", ["kind", "key", "created_at"])


def downgrade() -> None:
    op.drop_table("provider_uses")
