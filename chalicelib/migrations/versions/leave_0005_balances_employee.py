"""Leave: the ledger employee a user's cached leave balances were fetched for, so that a changed or cleared
mapping (connections area) never serves another employee's balances. Rows cached before it keep NULL: stale.

Revision ID: leave_0005
"""
import sqlalchemy as sa
from alembic import op

revision = "leave_0005"
down_revision = "leave_0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("leave_balances", sa.Column("ledger_employee_id", sa.String(length=100)))


def downgrade() -> None:
    op.drop_column("leave_balances", "ledger_employee_id")
