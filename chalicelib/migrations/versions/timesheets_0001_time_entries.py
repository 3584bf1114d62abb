"""Timesheets: time entries.

Revision ID: timesheets_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "timesheets_0001"
down_revision = "core_0001"
branch_labels = ("timesheets",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "time_entries",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("user_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_time_entries_user_id_users"), nullable=False),
        sa.Column("date", sa.Date(), nullable=False),
        sa.Column("hours", sa.Numeric(5, 2), nullable=False),
        sa.Column("task_id", sa.String(36)),
        sa.Column("project_id", sa.String(36)),
        sa.Column("budget_id", sa.String(36)),
        sa.Column("line_item_id", sa.String(36)),
        sa.Column("billable", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("status", sa.String(10), nullable=False, server_default="draft"),
        sa.Column("description", sa.Text()),
        sa.Column("submitted_at", UTCDateTime()),
        sa.Column("approved_by", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_time_entries_approved_by_users")),
        sa.Column("approved_at", UTCDateTime()),
        sa.Column("rejected_by", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_time_entries_rejected_by_users")),
        sa.Column("rejected_at", UTCDateTime()),
        sa.Column("rejection_reason", sa.Text()),
        sa.Column("created_by", sa.String(36)),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.CheckConstraint("hours > 0 AND hours <= 24", name="ck_time_entries_hours"),
        sa.CheckConstraint("status IN ('draft', 'submitted', 'approved', 'rejected')", name="ck_time_entries_status"),
    )
    for column in ("user_id", "date", "task_id", "project_id", "budget_id", "line_item_id", "status"):
        op.create_index(f"ix_time_entries_{column}", "time_entries", [column])


def downgrade() -> None:
    op.drop_table("time_entries")
