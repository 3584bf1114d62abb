"""Leave: the claim of the run calling a leave request's integration providers (one run at a time).

Revision ID: leave_0003
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "leave_0003"
down_revision = "leave_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("leave_requests", sa.Column("integrations_running_since", UTCDateTime()))


def downgrade() -> None:
    op.drop_column("leave_requests", "integrations_running_since")
