"""Notes: threaded notes on many resource types, with visibility levels and mentions.

Revision ID: notes_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "notes_0001"
down_revision = "core_0001"
branch_labels = ("notes",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notes",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("resource_type", sa.String(20), nullable=False),
        sa.Column("resource_id", sa.String(36), nullable=False),
        sa.Column("author_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_notes_author_id_users")),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("visibility", sa.JSON(), nullable=False),
        sa.Column("mentions", sa.JSON(), nullable=False),
        sa.Column("parent_id", sa.String(36),
                  sa.ForeignKey("notes.id", ondelete="CASCADE", name="fk_notes_parent_id_notes")),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_notes_resource_created", "notes", ["resource_type", "resource_id", "created_at"])
    op.create_index("ix_notes_parent_id", "notes", ["parent_id"])


def downgrade() -> None:
    op.drop_table("notes")
