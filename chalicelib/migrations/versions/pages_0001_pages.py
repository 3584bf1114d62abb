"""Pages: pages, favourites, discussions, comments and versions.

Revision ID: pages_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "pages_0001"
down_revision = "core_0001"
branch_labels = ("pages",)
depends_on = None


def _user(name: str, table: str, ondelete: str = "SET NULL") -> sa.Column:
    return sa.Column(name, sa.String(36), sa.ForeignKey("users.id", ondelete=ondelete, name=f"fk_{table}_{name}_users"))


def upgrade() -> None:
    op.create_table(
        "pages",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("title", sa.String(500), nullable=False, server_default="Untitled"),
        sa.Column("icon", sa.String(200)),
        sa.Column("parent_id", sa.String(36), sa.ForeignKey("pages.id", ondelete="SET NULL", name="fk_pages_parent_id_pages")),
        sa.Column("position", sa.Float(), nullable=False, server_default="0"),
        sa.Column("entity_type", sa.String(50)),
        sa.Column("entity_id", sa.String(36)),
        sa.Column("content", sa.Text(), nullable=False, server_default=""),
        sa.Column("content_rich", sa.Text()),
        sa.Column("collab_snapshot", sa.LargeBinary()),
        sa.Column("cover_image", sa.Text()),
        sa.Column("is_archived", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("full_width", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("small_text", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("lock_page", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("toc", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("text_style", sa.String(50), nullable=False, server_default="default"),
        sa.Column("is_published", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("published_at", UTCDateTime()),
        _user("created_by", "pages"),
        _user("updated_by", "pages"),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_pages_parent_id", "pages", ["parent_id"])
    op.create_index("ix_pages_entity", "pages", ["entity_type", "entity_id"])
    op.create_index("ix_pages_archived_parent_position", "pages", ["is_archived", "parent_id", "position"])

    op.create_table(
        "page_favourites",
        sa.Column("user_id", sa.String(36), sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_page_favourites_user_id_users"), primary_key=True),
        sa.Column("page_id", sa.String(36), sa.ForeignKey("pages.id", ondelete="CASCADE", name="fk_page_favourites_page_id_pages"), primary_key=True),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_page_favourites_page_id", "page_favourites", ["page_id"])

    op.create_table(
        "page_discussions",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("page_id", sa.String(36), sa.ForeignKey("pages.id", ondelete="CASCADE", name="fk_page_discussions_page_id_pages"), nullable=False),
        _user("user_id", "page_discussions"),
        sa.Column("document_content", sa.Text()),
        sa.Column("document_content_rich", sa.Text()),
        sa.Column("is_resolved", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_page_discussions_page_id", "page_discussions", ["page_id"])

    op.create_table(
        "page_comments",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("discussion_id", sa.String(36), sa.ForeignKey("page_discussions.id", ondelete="CASCADE", name="fk_page_comments_discussion_id_page_discussions"), nullable=False),
        _user("user_id", "page_comments"),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("content_rich", sa.Text()),
        sa.Column("is_edited", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_page_comments_discussion_id", "page_comments", ["discussion_id"])

    op.create_table(
        "page_versions",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("page_id", sa.String(36), sa.ForeignKey("pages.id", ondelete="CASCADE", name="fk_page_versions_page_id_pages"), nullable=False),
        _user("user_id", "page_versions"),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("content", sa.Text()),
        sa.Column("content_rich", sa.Text()),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_page_versions_page_created", "page_versions", ["page_id", "created_at"])


def downgrade() -> None:
    op.drop_table("page_versions")
    op.drop_table("page_comments")
    op.drop_table("page_discussions")
    op.drop_table("page_favourites")
    op.drop_table("pages")
