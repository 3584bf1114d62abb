"""Leave: when each user's cached balances were last dropped because the app booked or reversed leave of theirs in the
ledger (session 27): a refresh whose ledger read began before that drop stores nothing, so balances read before a
booking are never cached as fresh after it. No row: never dropped (nothing held back).

Revision ID: leave_0007
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "leave_0007"
down_revision = "leave_0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('leave_balance_drops',
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('dropped_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_leave_balance_drops_user_id_users'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('user_id', name=op.f('pk_leave_balance_drops'))
    )


def downgrade() -> None:
    op.drop_table('leave_balance_drops')
