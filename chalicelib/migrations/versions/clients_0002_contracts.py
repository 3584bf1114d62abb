"""Clients: contracts (decisions.md section 6), made by staff or by a proposal's acceptance.

Revision ID: clients_0002
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "clients_0002"
down_revision = "clients_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "contracts",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("title", sa.String(300), nullable=False),
        sa.Column("company_id", sa.String(36),
                  sa.ForeignKey("companies.id", ondelete="SET NULL", name="fk_contracts_company_id_companies")),
        sa.Column("proposal_id", sa.String(36)),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("signers", sa.JSON(), nullable=False),
        sa.Column("document_url", sa.String(2000)),
        sa.Column("created_by", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_contracts_created_by_users")),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    for column in ("company_id", "proposal_id", "status"):
        op.create_index(f"ix_contracts_{column}", "contracts", [column])


def downgrade() -> None:
    op.drop_table("contracts")
