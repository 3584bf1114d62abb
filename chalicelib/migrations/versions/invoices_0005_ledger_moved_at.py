"""Invoices: when the last ledger move (approve, send, void, ledger delete) was written. A move's Idempotency-Key is
made of it (service_ledger._move_key): unlike `updated_at`, no sync or live read writes it, so a user's retry after a
lost answer carries the same key (the client is not e-mailed twice), and a written move gives the next one a new key.

Revision ID: invoices_0005
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "invoices_0005"
down_revision = "invoices_0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("invoices", sa.Column("ledger_moved_at", UTCDateTime()))


def downgrade() -> None:
    op.drop_column("invoices", "ledger_moved_at")
