"""Portal: the portal users seen by the portal worker (their e-mail address, for e-mail delivery of portal
notifications) and what they submitted (a request's task, a note), so that the agency's answer reaches them.

Revision ID: portal_0002
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "portal_0002"
down_revision = "portal_0001"
branch_labels = None
depends_on = None


def _company(table: str, primary_key: bool = False) -> sa.Column:
    return sa.Column("company_id", sa.String(36),
                     sa.ForeignKey("companies.id", ondelete="CASCADE", name=f"fk_{table}_company_id_companies"),
                     nullable=False, primary_key=primary_key)


def upgrade() -> None:
    op.create_table(
        "portal_users",
        _company("portal_users", primary_key=True),
        sa.Column("portal_user_id", sa.String(100), primary_key=True),
        sa.Column("email", sa.String(320)),
        sa.Column("role", sa.String(20)),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_table(
        "portal_submissions",
        sa.Column("record_type", sa.String(20), primary_key=True),
        sa.Column("record_id", sa.String(36), primary_key=True),
        _company("portal_submissions"),
        sa.Column("portal_user_id", sa.String(100), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_portal_submissions_company_id", "portal_submissions", ["company_id"])


def downgrade() -> None:
    op.drop_table("portal_submissions")
    op.drop_table("portal_users")
