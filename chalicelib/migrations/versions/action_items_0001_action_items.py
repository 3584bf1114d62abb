"""Action items: the per-user work queue and the per-user module preferences.

Revision ID: action_items_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "action_items_0001"
down_revision = "core_0001"
branch_labels = ("action_items",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "action_items",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("company_id", sa.String(36)),
        sa.Column("contact_id", sa.String(36)),
        sa.Column("deal_id", sa.String(36)),
        sa.Column("project_id", sa.String(36)),
        sa.Column("assigned_to", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_action_items_assigned_to_users")),
        sa.Column("created_by", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_action_items_created_by_users")),
        sa.Column("due_date", sa.Date()),
        sa.Column("notes", sa.Text()),
        sa.Column("urgency", sa.String(20), nullable=False),
        sa.Column("source_module", sa.String(50), nullable=False),
        sa.Column("source_type", sa.String(50)),
        sa.Column("source_id", sa.String(200)),
        sa.Column("is_completed", sa.Boolean(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_action_items_assigned_open", "action_items", ["assigned_to", "is_completed"])
    op.create_table(
        "action_item_preferences",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("user_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_action_item_preferences_user_id_users"),
                  nullable=False),
        sa.Column("source_module", sa.String(50), nullable=False),
        sa.Column("is_visible", sa.Boolean(), nullable=False),
        sa.Column("show_in_feed", sa.Boolean(), nullable=False),
        sa.Column("show_work_board", sa.Boolean(), nullable=False),
        sa.UniqueConstraint("user_id", "source_module", name="uq_action_item_preferences_user_module"),
    )


def downgrade() -> None:
    op.drop_table("action_item_preferences")
    op.drop_table("action_items")
