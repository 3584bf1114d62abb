"""Action items: the day (ORG_TIMEZONE) an item's stored urgency was written. A read answers the due date's
urgency of today for an item whose urgency was written before today (or on no known day: null, every row
this migration finds), so the hour after midnight no longer answers yesterday's urgency.

Revision ID: action_items_0002
"""
import sqlalchemy as sa
from alembic import op

revision = "action_items_0002"
down_revision = "action_items_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("action_items", sa.Column("urgency_on", sa.Date()))


def downgrade() -> None:
    op.drop_column("action_items", "urgency_on")
