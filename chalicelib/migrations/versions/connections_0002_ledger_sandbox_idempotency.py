"""Connections: the idempotency key a sandbox ledger invoice was created with (chalicelib/providers/ledger), so that
a create repeated with the same key answers the first invoice, as Xero does.

Revision ID: connections_0002
"""
import sqlalchemy as sa
from alembic import op

revision = "connections_0002"
down_revision = "connections_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # in a batch: SQLite adds a unique constraint to a table only by copying it
    with op.batch_alter_table("ledger_sandbox_invoices") as batch:
        batch.add_column(sa.Column("idempotency_key", sa.String(length=128)))
        batch.create_unique_constraint("uq_ledger_sandbox_invoices_idempotency_key", ["idempotency_key"])


def downgrade() -> None:
    with op.batch_alter_table("ledger_sandbox_invoices") as batch:
        batch.drop_constraint("uq_ledger_sandbox_invoices_idempotency_key", type_="unique")
        batch.drop_column("idempotency_key")
