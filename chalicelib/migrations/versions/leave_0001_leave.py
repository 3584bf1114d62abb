"""Leave: leave types and balances cached from the leave ledger, leave requests with their approval chain and
integration outcomes.

Revision ID: leave_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "leave_0001"
down_revision = "core_0001"
branch_labels = ("leave",)
depends_on = None


def upgrade() -> None:
    op.create_table('leave_types',
    sa.Column('id', sa.String(length=100), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('is_paid', sa.Boolean(), nullable=False),
    sa.Column('fetched_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_leave_types'))
    )
    op.create_table('leave_balances',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('leave_type_id', sa.String(length=100), nullable=False),
    sa.Column('leave_type_name', sa.String(length=200), nullable=False),
    sa.Column('balance_hours', sa.Numeric(precision=10, scale=2), nullable=False),
    sa.Column('fetched_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_leave_balances_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_leave_balances')),
    sa.UniqueConstraint('user_id', 'leave_type_id', name='uq_leave_balances_user_type')
    )
    op.create_table('leave_requests',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('leave_type_id', sa.String(length=100), nullable=False),
    sa.Column('leave_type_name', sa.String(length=200), nullable=False),
    sa.Column('start_date', sa.Date(), nullable=False),
    sa.Column('end_date', sa.Date(), nullable=False),
    sa.Column('total_hours', sa.Numeric(precision=8, scale=2), nullable=True),
    sa.Column('notes', sa.Text(), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('manager_approved_by', sa.String(length=36), nullable=True),
    sa.Column('manager_approved_at', UTCDateTime(), nullable=True),
    sa.Column('exec_approved_by', sa.String(length=36), nullable=True),
    sa.Column('exec_approved_at', UTCDateTime(), nullable=True),
    sa.Column('rejected_by', sa.String(length=36), nullable=True),
    sa.Column('rejected_at', UTCDateTime(), nullable=True),
    sa.Column('rejection_reason', sa.Text(), nullable=True),
    sa.Column('cancelled_by', sa.String(length=36), nullable=True),
    sa.Column('cancelled_at', UTCDateTime(), nullable=True),
    sa.Column('ledger_leave_application_id', sa.String(length=200), nullable=True),
    sa.Column('planner_booking_id', sa.String(length=200), nullable=True),
    sa.Column('calendar_event_id', sa.String(length=200), nullable=True),
    sa.Column('chat_message_ts', sa.String(length=100), nullable=True),
    sa.Column('chat_channel', sa.String(length=200), nullable=True),
    sa.Column('integration_errors', sa.JSON(), nullable=True),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['cancelled_by'], ['users.id'], name=op.f('fk_leave_requests_cancelled_by_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['exec_approved_by'], ['users.id'], name=op.f('fk_leave_requests_exec_approved_by_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['manager_approved_by'], ['users.id'], name=op.f('fk_leave_requests_manager_approved_by_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['rejected_by'], ['users.id'], name=op.f('fk_leave_requests_rejected_by_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_leave_requests_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_leave_requests'))
    )
    op.create_index('ix_leave_requests_status', 'leave_requests', ['status'], unique=False)
    op.create_index('ix_leave_requests_user_dates', 'leave_requests', ['user_id', 'start_date', 'end_date'], unique=False)


def downgrade() -> None:
    op.drop_table("leave_requests")
    op.drop_table("leave_balances")
    op.drop_table("leave_types")
