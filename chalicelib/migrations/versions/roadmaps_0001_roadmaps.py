"""Roadmaps: roadmaps and their items.

Revision ID: roadmaps_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "roadmaps_0001"
down_revision = "core_0001"
branch_labels = ("roadmaps",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "roadmaps",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("project_id", sa.String(36)),
        sa.Column("start_date", sa.Date()),
        sa.Column("end_date", sa.Date()),
        sa.Column("created_by", sa.String(36)),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_roadmaps_project_id", "roadmaps", ["project_id"])
    op.create_table(
        "roadmap_items",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("roadmap_id", sa.String(36),
                  sa.ForeignKey("roadmaps.id", ondelete="CASCADE", name="fk_roadmap_items_roadmap_id_roadmaps"),
                  nullable=False),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("goal_id", sa.String(36)),
        sa.Column("area", sa.String(100)),
        sa.Column("start_date", sa.Date()),
        sa.Column("end_date", sa.Date()),
        sa.Column("color", sa.String(20)),
        sa.Column("position", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_roadmap_items_roadmap_id", "roadmap_items", ["roadmap_id"])


def downgrade() -> None:
    op.drop_table("roadmap_items")
    op.drop_table("roadmaps")
