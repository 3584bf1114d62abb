"""Meetings: meetings from the meeting-notes provider, attendees, action items and the sync state.

Revision ID: meetings_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "meetings_0001"
down_revision = "core_0001"
branch_labels = ("meetings",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "meetings",
        sa.Column("id", sa.String(100), primary_key=True),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("summary", sa.Text()),
        sa.Column("category", sa.String(50)),
        sa.Column("meeting_date", UTCDateTime()),
        sa.Column("duration_minutes", sa.Float()),
        sa.Column("organizer_email", sa.String(320)),
        sa.Column("action_items_text", sa.Text()),
        sa.Column("entity_type", sa.String(50)),
        sa.Column("entity_id", sa.String(36)),
        sa.Column("transcript", sa.JSON()),
        sa.Column("analysed_at", UTCDateTime()),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_meetings_meeting_date", "meetings", ["meeting_date"])
    op.create_index("ix_meetings_entity", "meetings", ["entity_type", "entity_id"])
    op.create_table(
        "meeting_attendees",
        sa.Column("meeting_id", sa.String(100),
                  sa.ForeignKey("meetings.id", ondelete="CASCADE", name="fk_meeting_attendees_meeting_id_meetings"),
                  primary_key=True),
        sa.Column("email", sa.String(320), primary_key=True),
        sa.Column("name", sa.String(200)),
        sa.Column("user_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_meeting_attendees_user_id_users")),
    )
    op.create_index("ix_meeting_attendees_user_id", "meeting_attendees", ["user_id"])
    op.create_table(
        "meeting_action_items",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("meeting_id", sa.String(100),
                  sa.ForeignKey("meetings.id", ondelete="CASCADE", name="fk_meeting_action_items_meeting_id_meetings"),
                  nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("assignee_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_meeting_action_items_assignee_id_users")),
        sa.Column("source", sa.String(20), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.UniqueConstraint("meeting_id", "position", name="uq_meeting_action_items_meeting_position"),
    )
    op.create_table(
        "meeting_sync_state",
        sa.Column("provider", sa.String(50), primary_key=True),
        sa.Column("last_synced_at", UTCDateTime()),
        sa.Column("last_note_date", UTCDateTime()),
    )


def downgrade() -> None:
    op.drop_table("meeting_sync_state")
    op.drop_table("meeting_action_items")
    op.drop_table("meeting_attendees")
    op.drop_table("meetings")
