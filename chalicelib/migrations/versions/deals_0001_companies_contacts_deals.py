"""Deals: companies, contacts and deals.

Revision ID: deals_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "deals_0001"
down_revision = "core_0001"
branch_labels = ("deals",)
depends_on = None


def _timestamps():
    return [
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    ]


def upgrade() -> None:
    op.create_table(
        "companies",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("domain", sa.String(255)),
        sa.Column("website", sa.String(500)),
        sa.Column("industry", sa.String(200)),
        sa.Column("phone", sa.String(50)),
        sa.Column("address", sa.Text()),
        sa.Column("status", sa.String(20), nullable=False, server_default="prospect"),
        sa.Column("owner_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_companies_owner_id_users")),
        sa.Column("network_data", sa.JSON()),
        sa.Column("network_enriched_at", UTCDateTime()),
        sa.Column("created_by", sa.String(36)),
        *_timestamps(),
        sa.CheckConstraint("status IN ('prospect', 'client')", name="ck_companies_status"),
    )
    op.create_index("ix_companies_name", "companies", ["name"])
    op.create_index("ix_companies_domain", "companies", ["domain"])
    op.create_index("ix_companies_owner_id", "companies", ["owner_id"])

    op.create_table(
        "contacts",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("first_name", sa.String(200), nullable=False),
        sa.Column("last_name", sa.String(200)),
        sa.Column("email", sa.String(320)),
        sa.Column("phone", sa.String(50)),
        sa.Column("job_title", sa.String(200)),
        sa.Column("company_id", sa.String(36),
                  sa.ForeignKey("companies.id", ondelete="SET NULL", name="fk_contacts_company_id_companies")),
        sa.Column("network_url", sa.String(500)),
        sa.Column("network_data", sa.JSON()),
        sa.Column("network_enriched_at", UTCDateTime()),
        sa.Column("created_by", sa.String(36)),
        *_timestamps(),
    )
    op.create_index("ix_contacts_email", "contacts", ["email"])
    op.create_index("ix_contacts_company_id", "contacts", ["company_id"])

    op.create_table(
        "deals",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("title", sa.String(300), nullable=False),
        sa.Column("company_id", sa.String(36), sa.ForeignKey("companies.id", name="fk_deals_company_id_companies")),
        sa.Column("contact_id", sa.String(36),
                  sa.ForeignKey("contacts.id", ondelete="SET NULL", name="fk_deals_contact_id_contacts")),
        sa.Column("owner_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_deals_owner_id_users")),
        sa.Column("stage_id", sa.String(36),
                  sa.ForeignKey("config_list_items.id", ondelete="SET NULL", name="fk_deals_stage_id_config_list_items")),
        sa.Column("value", sa.Numeric(14, 2)),
        sa.Column("currency", sa.String(3), nullable=False, server_default="AUD"),
        sa.Column("status", sa.String(10), nullable=False, server_default="open"),
        sa.Column("website", sa.String(500)),
        sa.Column("created_by", sa.String(36)),
        *_timestamps(),
        sa.CheckConstraint("status IN ('open', 'won', 'lost')", name="ck_deals_status"),
    )
    for column in ("company_id", "contact_id", "owner_id", "stage_id", "status"):
        op.create_index(f"ix_deals_{column}", "deals", [column])


def downgrade() -> None:
    op.drop_table("deals")
    op.drop_table("contacts")
    op.drop_table("companies")
