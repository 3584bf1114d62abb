"""Sprints.

Revision ID: sprints_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "sprints_0001"
down_revision = "core_0001"
branch_labels = ("sprints",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sprints",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("project_id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("start_date", sa.Date()),
        sa.Column("end_date", sa.Date()),
        sa.Column("status", sa.String(10), nullable=False, server_default="planned"),
        sa.Column("created_by", sa.String(36)),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.CheckConstraint("status IN ('planned', 'active', 'closed')", name="ck_sprints_status"),
        sa.CheckConstraint("end_date IS NULL OR start_date IS NULL OR end_date >= start_date",
                           name="ck_sprints_dates"),
    )
    op.create_index("ix_sprints_project_id", "sprints", ["project_id"])
    op.create_index("ix_sprints_status", "sprints", ["status"])


def downgrade() -> None:
    op.drop_table("sprints")
