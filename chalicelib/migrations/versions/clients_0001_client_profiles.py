"""Clients: client profiles (decisions.md section 6), one per client company.

Revision ID: clients_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "clients_0001"
down_revision = "core_0001"
branch_labels = ("clients",)
depends_on = "deals_0001"


def upgrade() -> None:
    op.create_table(
        "client_profiles",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("company_id", sa.String(36),
                  sa.ForeignKey("companies.id", ondelete="CASCADE", name="fk_client_profiles_company_id_companies"),
                  nullable=False),
        sa.Column("dashboard_enabled", sa.Boolean(), nullable=False),
        sa.Column("delivery_manager_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_client_profiles_delivery_manager_id_users")),
        sa.Column("onboarding_template_id", sa.String(36)),
        sa.Column("portal_visibility", sa.JSON(), nullable=False),
        sa.Column("client_group", sa.String(200)),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.UniqueConstraint("company_id", name="uq_client_profiles_company_id"),
    )
    op.create_index("ix_client_profiles_client_group", "client_profiles", ["client_group"])
    # companies that are clients already get their profile with defaults
    op.execute("INSERT INTO client_profiles (id, company_id, dashboard_enabled, portal_visibility) "
               "SELECT id, id, false, '{}' FROM companies WHERE status = 'client'")


def downgrade() -> None:
    op.drop_table("client_profiles")
