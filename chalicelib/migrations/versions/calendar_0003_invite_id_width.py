"""Calendar: an invitation is keyed by the provider's event id whole, up to 1,024 characters (a Google event id's
limit; the instances of a recurring event are "<base id>_<start>"). It was cut to 255 characters, so with a long base
id every instance of a series was one invitation: only the first was told, and answering one marked all of them
answered. SQLite does not enforce a VARCHAR's length: Postgres only.

Revision ID: calendar_0003
"""
import sqlalchemy as sa
from alembic import op

revision = "calendar_0003"
down_revision = "calendar_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("calendar_invites", "event_id", type_=sa.String(1024), existing_type=sa.String(255),
                        existing_nullable=False)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        # ids past 255 characters cannot go back: their rows are dropped (the scan records them again, told or not)
        op.execute("DELETE FROM calendar_invites WHERE length(event_id) > 255")
        op.alter_column("calendar_invites", "event_id", type_=sa.String(255), existing_type=sa.String(1024),
                        existing_nullable=False)
