"""Timesheets: who last changed a time entry's values (`updated_by`), so that approval is refused to a manager who
edited a team member's entry (docs/decisions/timesheets.md, "Editor is not approver").

Revision ID: timesheets_0003
"""
import sqlalchemy as sa
from alembic import op

revision = "timesheets_0003"
down_revision = "timesheets_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("time_entries", sa.Column("updated_by", sa.String(36)))


def downgrade() -> None:
    op.drop_column("time_entries", "updated_by")
