"""Leave: the sandbox leave ledger's leave applications (chalicelib/providers/payroll).

Revision ID: leave_0002
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "leave_0002"
down_revision = "leave_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('payroll_sandbox_leave_applications',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('employee_id', sa.String(length=100), nullable=False),
    sa.Column('leave_type_id', sa.String(length=100), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('start_date', sa.Date(), nullable=False),
    sa.Column('end_date', sa.Date(), nullable=False),
    sa.Column('hours', sa.Numeric(precision=10, scale=2), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_payroll_sandbox_leave_applications'))
    )
    op.create_index(op.f('ix_payroll_sandbox_leave_applications_employee_id'), 'payroll_sandbox_leave_applications', ['employee_id'], unique=False)


def downgrade() -> None:
    op.drop_table("payroll_sandbox_leave_applications")
