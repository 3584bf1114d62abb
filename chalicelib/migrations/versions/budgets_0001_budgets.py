"""Budgets: budgets and their line items.

Revision ID: budgets_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "budgets_0001"
down_revision = "core_0001"
branch_labels = ("budgets",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "budgets",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("resource_type", sa.String(20), nullable=False),
        sa.Column("resource_id", sa.String(36), nullable=False),
        sa.Column("po_number", sa.String(100)),
        sa.Column("currency", sa.String(3), nullable=False, server_default="AUD"),
        sa.Column("status", sa.String(20), nullable=False, server_default="draft"),
        sa.Column("total_amount", sa.Numeric(14, 2)),
        sa.Column("company_id", sa.String(36)),
        sa.Column("notes", sa.Text()),
        sa.Column("owner_id", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_budgets_owner_id_users")),
        sa.Column("created_by", sa.String(36)),
        sa.Column("budget_type", sa.String(30)),
        sa.Column("forecast_date", sa.Date()),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_budgets_status", "budgets", ["status"])
    op.create_index("ix_budgets_company_id", "budgets", ["company_id"])
    op.create_index("ix_budgets_resource", "budgets", ["resource_type", "resource_id"])
    op.create_table(
        "budget_line_items",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("budget_id", sa.String(36),
                  sa.ForeignKey("budgets.id", ondelete="CASCADE", name="fk_budget_line_items_budget_id_budgets"),
                  nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("quantity", sa.Numeric(12, 2), nullable=False, server_default="1"),
        sa.Column("unit_price", sa.Numeric(14, 2), nullable=False, server_default="0"),
        sa.Column("amount", sa.Numeric(26, 4), nullable=False, server_default="0"),
        sa.Column("service_type_id", sa.String(36)),
        sa.Column("task_id", sa.String(36)),
        sa.Column("position", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_budget_line_items_budget_id", "budget_line_items", ["budget_id"])


def downgrade() -> None:
    op.drop_table("budget_line_items")
    op.drop_table("budgets")
