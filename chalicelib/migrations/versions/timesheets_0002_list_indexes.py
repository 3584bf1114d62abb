"""An index for the time-entry list's order (date DESC, created_at DESC, id) (issue 11 item 3): the first page is read
from the index scanned backwards (ties sorted incrementally) instead of sorting every row; its filters had theirs.

Revision ID: timesheets_0002
"""
from alembic import op

revision = "timesheets_0002"
down_revision = "timesheets_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_time_entries_list_order", "time_entries", ["date", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_time_entries_list_order", table_name="time_entries")
