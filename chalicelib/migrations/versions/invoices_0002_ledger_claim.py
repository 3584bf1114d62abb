"""Invoices: the claim of the push or ledger move under way on an invoice (one at a time).

Revision ID: invoices_0002
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "invoices_0002"
down_revision = "invoices_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("invoices", sa.Column("ledger_move_since", UTCDateTime()))


def downgrade() -> None:
    op.drop_column("invoices", "ledger_move_since")
