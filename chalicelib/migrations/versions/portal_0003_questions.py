"""Portal: the questions a company's portal asked about its results (one AI request each), for its hourly
allowance.

Revision ID: portal_0003
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "portal_0003"
down_revision = "portal_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "portal_questions",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("company_id", sa.String(36),
                  sa.ForeignKey("companies.id", ondelete="CASCADE", name="fk_portal_questions_company_id_companies"),
                  nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_portal_questions_company_id_created_at", "portal_questions", ["company_id", "created_at"])


def downgrade() -> None:
    op.drop_table("portal_questions")
