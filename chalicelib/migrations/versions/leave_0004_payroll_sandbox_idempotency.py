"""Leave: the idempotency key a sandbox leave application was created with (chalicelib/providers/payroll), so that
an application repeated with the same key answers the first one, as Xero does.

Revision ID: leave_0004
"""
import sqlalchemy as sa
from alembic import op

revision = "leave_0004"
down_revision = "leave_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # in a batch: SQLite adds a unique constraint to a table only by copying it
    with op.batch_alter_table("payroll_sandbox_leave_applications") as batch:
        batch.add_column(sa.Column("idempotency_key", sa.String(length=128)))
        batch.create_unique_constraint("uq_payroll_sandbox_leave_applications_idempotency_key", ["idempotency_key"])


def downgrade() -> None:
    with op.batch_alter_table("payroll_sandbox_leave_applications") as batch:
        batch.drop_constraint("uq_payroll_sandbox_leave_applications_idempotency_key", type_="unique")
        batch.drop_column("idempotency_key")
