"""Invoices: the due date whose passing was told (`invoice_overdue`, once per invoice and due date).

Invoices already overdue when this ships (due before yesterday, in UTC) are taken as told: the first hourly scan tells
what falls overdue from then on, not every old unpaid invoice at once (an e-mail each by default). One due yesterday
or today is left to the scan, which reads today in ORG_TIMEZONE.

Revision ID: invoices_0003
"""
from datetime import datetime, timedelta, timezone

import sqlalchemy as sa
from alembic import op

revision = "invoices_0003"
down_revision = "invoices_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("invoices", sa.Column("overdue_noticed_for", sa.Date()))
    before = datetime.now(timezone.utc).date() - timedelta(days=1)
    op.execute(sa.text("UPDATE invoices SET overdue_noticed_for = due_date WHERE status IN ('approved', 'sent') "
                       "AND COALESCE(payment_status, '') <> 'paid' AND due_date < :before").bindparams(before=before))


def downgrade() -> None:
    op.drop_column("invoices", "overdue_noticed_for")
