"""Notifications: in-app records, preferences, deliveries, push subscriptions, squad configuration
and the sandbox providers' outbox.

Revision ID: notifications_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "notifications_0001"
down_revision = "core_0001"
branch_labels = ("notifications",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notifications",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("user_id", sa.String(36), sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_notifications_user_id_users"), nullable=False),
        sa.Column("type", sa.String(100), nullable=False),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("body", sa.Text()),
        sa.Column("icon", sa.String(100)),
        sa.Column("resource_type", sa.String(50)),
        sa.Column("resource_id", sa.String(36)),
        sa.Column("action_url", sa.Text()),
        sa.Column("actor_id", sa.String(36)),
        sa.Column("is_read", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("read_at", UTCDateTime()),
        sa.Column("archived", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("archived_at", UTCDateTime()),
        sa.Column("in_app", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_notifications_user_created", "notifications", ["user_id", "created_at"])
    op.create_index("ix_notifications_dedup", "notifications", ["user_id", "type", "resource_type", "resource_id", "created_at"])


    op.create_table(
        "notification_preferences",
        sa.Column("user_id", sa.String(36), sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_notification_preferences_user_id_users"), primary_key=True),
        sa.Column("notification_type", sa.String(100), primary_key=True),
        sa.Column("channel_in_app", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("channel_email", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("channel_chat", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("channel_push", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_table(
        "notification_deliveries",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("notification_id", sa.String(36)),
        sa.Column("user_id", sa.String(36)),
        sa.Column("squad_id", sa.String(36)),
        sa.Column("channel", sa.String(20), nullable=False),
        sa.Column("target", sa.String(320)),
        sa.Column("type", sa.String(100), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False, server_default="pending"),
        sa.Column("error", sa.Text()),
        sa.Column("external_id", sa.String(200)),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("last_attempt_at", UTCDateTime()),
        sa.Column("sent_at", UTCDateTime()),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_notification_deliveries_notification_id", "notification_deliveries", ["notification_id"])
    op.create_index("ix_notification_deliveries_status", "notification_deliveries", ["status", "created_at"])
    op.create_index("ix_notification_deliveries_created", "notification_deliveries", ["created_at"])
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("user_id", sa.String(36), sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_push_subscriptions_user_id_users"), nullable=False),
        sa.Column("endpoint", sa.String(1000), nullable=False),
        sa.Column("p256dh", sa.String(200), nullable=False),
        sa.Column("auth", sa.String(100), nullable=False),
        sa.Column("user_agent", sa.String(500)),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("last_used_at", UTCDateTime()),
        sa.UniqueConstraint("endpoint", name="uq_push_subscriptions_endpoint"),
    )
    op.create_index("ix_push_subscriptions_user_id", "push_subscriptions", ["user_id"])
    op.create_table(
        "squad_notification_configs",
        sa.Column("squad_id", sa.String(36), sa.ForeignKey("squads.id", ondelete="CASCADE", name="fk_squad_notification_configs_squad_id_squads"), primary_key=True),
        sa.Column("notification_type", sa.String(100), primary_key=True),
        sa.Column("chat_channel_id", sa.String(200)),
        sa.Column("email_group", sa.String(320)),
        sa.Column("enabled", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_table(
        "sandbox_outbox",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("provider", sa.String(20), nullable=False),
        sa.Column("target", sa.String(1000), nullable=False),
        sa.Column("subject", sa.String(500)),
        sa.Column("body", sa.Text()),
        sa.Column("payload", sa.JSON()),
        sa.Column("external_id", sa.String(200), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_sandbox_outbox_provider_created", "sandbox_outbox", ["provider", "created_at"])


def downgrade() -> None:
    op.drop_table("sandbox_outbox")
    op.drop_table("squad_notification_configs")
    op.drop_table("push_subscriptions")
    op.drop_table("notification_deliveries")
    op.drop_table("notification_preferences")
    op.drop_table("notifications")
