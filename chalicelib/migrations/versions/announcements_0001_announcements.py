"""Announcements: announcements, read receipts and distributions.

Revision ID: announcements_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "announcements_0001"
down_revision = "core_0001"
branch_labels = ("announcements",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "announcements",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("category", sa.String(20), nullable=False),
        sa.Column("attachment_url", sa.Text()),
        sa.Column("attachment_name", sa.String(500)),
        sa.Column("author_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_announcements_author_id_users")),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_announcements_created_at", "announcements", ["created_at"])
    op.create_table(
        "announcement_reads",
        sa.Column("announcement_id", sa.String(36),
                  sa.ForeignKey("announcements.id", ondelete="CASCADE",
                                name="fk_announcement_reads_announcement_id_announcements"), primary_key=True),
        sa.Column("user_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_announcement_reads_user_id_users"),
                  primary_key=True),
        sa.Column("read_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_announcement_reads_user_id", "announcement_reads", ["user_id"])
    op.create_table(
        "announcement_distributions",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("announcement_id", sa.String(36),
                  sa.ForeignKey("announcements.id", ondelete="CASCADE",
                                name="fk_announcement_distributions_announcement_id_announcements"), nullable=False),
        sa.Column("channel", sa.String(20), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("external_id", sa.String(500)),
        sa.Column("error", sa.Text()),
        sa.Column("sent_by", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_announcement_distributions_sent_by_users")),
        sa.Column("sent_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_announcement_distributions_announcement", "announcement_distributions",
                    ["announcement_id", "sent_at"])


def downgrade() -> None:
    op.drop_table("announcement_distributions")
    op.drop_table("announcement_reads")
    op.drop_table("announcements")
