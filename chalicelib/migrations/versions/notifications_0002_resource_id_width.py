"""Notifications: `resource_id` holds a provider's id as it is, up to 1,024 characters (a Google Calendar event id
runs to 1,024; Outlook invitations' ids share a long common prefix). It was 36 characters, and the calendar's
notices cut the event id to fit, so two invitations whose ids began alike were one resource to the 5-minute
de-duplication and the second was never told. SQLite does not enforce a VARCHAR's length: Postgres only.

Revision ID: notifications_0002
"""
import sqlalchemy as sa
from alembic import op

revision = "notifications_0002"
down_revision = "notifications_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("notifications", "resource_id", type_=sa.String(1024), existing_type=sa.String(36))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("UPDATE notifications SET resource_id = left(resource_id, 36) WHERE length(resource_id) > 36")
        op.alter_column("notifications", "resource_id", type_=sa.String(36), existing_type=sa.String(1024))
