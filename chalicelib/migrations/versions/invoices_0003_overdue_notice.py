"""Invoices: the due date whose passing was told (`invoice_overdue`, once per invoice and due date).

Revision ID: invoices_0003
"""
import sqlalchemy as sa
from alembic import op

revision = "invoices_0003"
down_revision = "invoices_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("invoices", sa.Column("overdue_noticed_for", sa.Date()))


def downgrade() -> None:
    op.drop_column("invoices", "overdue_noticed_for")
