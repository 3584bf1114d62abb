"""Notifications: the sandbox outbox keeps a message's subject and recipients whole (text), as the providers it
stands for take them. A subject was at most 500 characters: an announcement's e-mail, "Announcement: " and a
500-character title, failed its flush and the whole distribution answered 500 in sandbox mode, the default.
SQLite does not enforce a VARCHAR's length: Postgres only.

Revision ID: notifications_0003
"""
import sqlalchemy as sa
from alembic import op

revision = "notifications_0003"
down_revision = "notifications_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("sandbox_outbox", "subject", type_=sa.Text(), existing_type=sa.String(500))
        op.alter_column("sandbox_outbox", "target", type_=sa.Text(), existing_type=sa.String(1000),
                        existing_nullable=False)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("UPDATE sandbox_outbox SET subject = left(subject, 500), target = left(target, 1000)")
        op.alter_column("sandbox_outbox", "subject", type_=sa.String(500), existing_type=sa.Text())
        op.alter_column("sandbox_outbox", "target", type_=sa.String(1000), existing_type=sa.Text(),
                        existing_nullable=False)
