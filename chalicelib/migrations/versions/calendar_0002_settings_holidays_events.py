"""Calendar: settings, public holidays, culture events, the invite scan's invitations and the place cache.

Revision ID: calendar_0002
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "calendar_0002"
down_revision = "calendar_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "calendar_settings",
        sa.Column("user_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_calendar_settings_user_id_users"),
                  primary_key=True),
        sa.Column("default_view", sa.String(10), nullable=False),
        sa.Column("visible_calendar_ids", sa.Text()),
        *(sa.Column(name, sa.Boolean(), nullable=False) for name in (
            "show_birthdays", "show_anniversaries", "show_leave", "show_public_holidays", "show_new_starters",
            "show_events", "show_weekends")),
        sa.Column("viewed_person_ids", sa.Text()),
        sa.Column("updated_at", UTCDateTime()),
    )
    op.create_table(
        "public_holidays",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("date", sa.Date(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("region", sa.String(100)),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_public_holidays_date", "public_holidays", ["date"])
    op.create_table(
        "culture_events",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("date", sa.Date(), nullable=False),
        sa.Column("end_date", sa.Date()),
        sa.Column("location", sa.String(500)),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("created_by", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_culture_events_created_by_users")),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_culture_events_date", "culture_events", ["date"])
    op.create_table(
        "calendar_invites",
        sa.Column("user_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_calendar_invites_user_id_users"),
                  primary_key=True),
        sa.Column("event_id", sa.String(255), primary_key=True),
        sa.Column("notified_at", UTCDateTime()),
        sa.Column("responded_at", UTCDateTime()),
        sa.Column("response", sa.String(20)),
    )
    op.create_table(
        "place_search_cache",
        sa.Column("key", sa.String(300), primary_key=True),
        sa.Column("results", sa.JSON(), nullable=False),
        sa.Column("cached_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("place_search_cache")
    op.drop_table("calendar_invites")
    op.drop_index("ix_culture_events_date", "culture_events")
    op.drop_table("culture_events")
    op.drop_index("ix_public_holidays_date", "public_holidays")
    op.drop_table("public_holidays")
    op.drop_table("calendar_settings")
