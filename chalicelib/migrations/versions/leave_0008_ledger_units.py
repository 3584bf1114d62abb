"""Leave: the hours per day a request's leave application was first sent with (session 28): counted once, at the
request's first ledger attempt (service_integrations.run), and sent unchanged on every retry, so a retry after a
lost answer carries the same application and Idempotency-Key even when a public holiday was entered or the
requester's location changed in between. NULL: never sent (the next attempt counts and keeps them).

Revision ID: leave_0008
"""
import sqlalchemy as sa
from alembic import op

revision = "leave_0008"
down_revision = "leave_0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("leave_requests", sa.Column("ledger_units", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column("leave_requests", "ledger_units")
