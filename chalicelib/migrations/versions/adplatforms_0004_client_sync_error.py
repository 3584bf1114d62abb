"""Ad platforms: what a client reads of a failed sync of their ad connection (`client_sync_error`), apart from what
staff read (`last_sync_error`, which may name the agency's settings).

Revision ID: adplatforms_0004
"""
import sqlalchemy as sa
from alembic import op

revision = "adplatforms_0004"
down_revision = "adplatforms_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("ad_connections", sa.Column("client_sync_error", sa.Text()))


def downgrade() -> None:
    op.drop_column("ad_connections", "client_sync_error")
