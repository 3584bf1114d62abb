"""Ad platforms: when the scheduled sync read a connection's long history (the request-time syncs read only the
recent days).

Revision ID: adplatforms_0002
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "adplatforms_0002"
down_revision = "adplatforms_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("ad_connections", sa.Column("backfilled_at", UTCDateTime()))


def downgrade() -> None:
    op.drop_column("ad_connections", "backfilled_at")
