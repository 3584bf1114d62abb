"""Invoices: when the ledger was last asked for the invoice's state by its detail or its single sync, whatever it
answered (service_ledger_sync.LIVE_READ_SECONDS). `ledger_synced_at` is when an answer was written: a failed or empty
read wrote nothing, so every view asked the ledger again (session 26).

Revision ID: invoices_0006
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "invoices_0006"
down_revision = "invoices_0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("invoices", sa.Column("ledger_asked_at", UTCDateTime()))


def downgrade() -> None:
    op.drop_column("invoices", "ledger_asked_at")
