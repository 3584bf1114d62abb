"""Calendar: the sandbox calendar provider's events (CALENDAR_MODE=sandbox).

Revision ID: calendar_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "calendar_0001"
down_revision = "core_0001"
branch_labels = ("calendar",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sandbox_calendar_events",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("calendar_id", sa.String(320), nullable=False),
        sa.Column("organizer_email", sa.String(320), nullable=False),
        sa.Column("attendee_emails", sa.Text(), nullable=False),
        sa.Column("start_at", UTCDateTime(), nullable=False),
        sa.Column("end_at", UTCDateTime(), nullable=False),
        sa.Column("event", sa.JSON(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_sandbox_calendar_events_calendar_start", "sandbox_calendar_events", ["calendar_id", "start_at"])


def downgrade() -> None:
    op.drop_table("sandbox_calendar_events")
