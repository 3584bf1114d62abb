"""Invoices: invoices, line items, payments, billed time entries, mapping rules, the number counter and
the ledger sync runs.

Revision ID: invoices_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "invoices_0001"
down_revision = "core_0001"
branch_labels = ("invoices",)
depends_on = ("budgets_0001", "timesheets_0001")


def _stamps():
    return [sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
            sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now())]


def upgrade() -> None:
    op.create_table(
        "invoices",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("invoice_number", sa.String(50), nullable=False),
        sa.Column("status", sa.String(20), nullable=False, server_default="draft"),
        sa.Column("currency", sa.String(3), nullable=False, server_default="AUD"),
        sa.Column("due_date", sa.Date()),
        sa.Column("issued_date", sa.Date(), nullable=False),
        sa.Column("notes", sa.Text()),
        sa.Column("company_id", sa.String(36)),
        sa.Column("contact_id", sa.String(36)),
        sa.Column("budget_id", sa.String(36),
                  sa.ForeignKey("budgets.id", ondelete="SET NULL", name="fk_invoices_budget_id_budgets")),
        sa.Column("ledger_invoice_id", sa.String(100)),
        sa.Column("subtotal", sa.Numeric(16, 2), nullable=False, server_default="0"),
        sa.Column("tax", sa.Numeric(16, 2), nullable=False, server_default="0"),
        sa.Column("total", sa.Numeric(16, 2), nullable=False, server_default="0"),
        sa.Column("amount_paid", sa.Numeric(16, 2), nullable=False, server_default="0"),
        sa.Column("amount_due", sa.Numeric(16, 2)),
        sa.Column("payment_status", sa.String(20)),
        sa.Column("ledger_status", sa.String(20)),
        sa.Column("ledger_synced_at", UTCDateTime()),
        sa.Column("created_by", sa.String(36)),
        *_stamps(),
        sa.UniqueConstraint("invoice_number", name="uq_invoices_invoice_number"),
    )
    for column in ("status", "company_id", "budget_id", "ledger_invoice_id"):
        op.create_index(f"ix_invoices_{column}", "invoices", [column])
    op.create_index("ix_invoices_list_order", "invoices", ["issued_date", "created_at"])
    op.create_table(
        "invoice_line_items",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("invoice_id", sa.String(36),
                  sa.ForeignKey("invoices.id", ondelete="CASCADE", name="fk_invoice_line_items_invoice_id_invoices"),
                  nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("quantity", sa.Numeric(12, 2), nullable=False, server_default="1"),
        sa.Column("unit_price", sa.Numeric(14, 2), nullable=False, server_default="0"),
        sa.Column("amount", sa.Numeric(26, 4), nullable=False, server_default="0"),
        sa.Column("service_type_id", sa.String(36)),
        sa.Column("ledger_account_code", sa.String(50)),
        sa.Column("tax_type", sa.String(50)),
        sa.Column("position", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("budget_line_item_id", sa.String(36),
                  sa.ForeignKey("budget_line_items.id", ondelete="SET NULL",
                                name="fk_invoice_line_items_budget_line_item_id_budget_line_items")),
        *_stamps(),
    )
    op.create_index("ix_invoice_line_items_invoice_id", "invoice_line_items", ["invoice_id"])
    op.create_index("ix_invoice_line_items_budget_line_item_id", "invoice_line_items", ["budget_line_item_id"])
    op.create_table(
        "invoice_payments",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("invoice_id", sa.String(36),
                  sa.ForeignKey("invoices.id", ondelete="CASCADE", name="fk_invoice_payments_invoice_id_invoices"),
                  nullable=False),
        sa.Column("ledger_payment_id", sa.String(100), nullable=False),
        sa.Column("amount", sa.Numeric(16, 2), nullable=False),
        sa.Column("date", sa.Date()),
        sa.Column("reference", sa.String(255)),
        sa.Column("status", sa.String(20)),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.UniqueConstraint("invoice_id", "ledger_payment_id", name="uq_invoice_payments_ledger"),
    )
    op.create_index("ix_invoice_payments_invoice_id", "invoice_payments", ["invoice_id"])
    op.create_table(
        "invoice_time_entries",
        sa.Column("time_entry_id", sa.String(36),
                  sa.ForeignKey("time_entries.id", ondelete="CASCADE",
                                name="fk_invoice_time_entries_time_entry_id_time_entries"), primary_key=True),
        sa.Column("invoice_id", sa.String(36),
                  sa.ForeignKey("invoices.id", ondelete="CASCADE", name="fk_invoice_time_entries_invoice_id_invoices"),
                  nullable=False),
        sa.Column("line_item_id", sa.String(36),
                  sa.ForeignKey("invoice_line_items.id", ondelete="CASCADE",
                                name="fk_invoice_time_entries_line_item_id_invoice_line_items"), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_invoice_time_entries_invoice_id", "invoice_time_entries", ["invoice_id"])
    op.create_index("ix_invoice_time_entries_line_item_id", "invoice_time_entries", ["line_item_id"])
    op.create_table(
        "invoice_mapping_rules",
        sa.Column("service_type_id", sa.String(36),
                  sa.ForeignKey("config_list_items.id", ondelete="CASCADE",
                                name="fk_invoice_mapping_rules_service_type_id_config_list_items"), primary_key=True),
        sa.Column("ledger_account_code", sa.String(50), nullable=False),
        sa.Column("description", sa.Text()),
        *_stamps(),
    )
    counters = op.create_table(
        "invoice_number_counters",
        sa.Column("name", sa.String(20), primary_key=True),
        sa.Column("last_value", sa.Integer(), nullable=False, server_default="0"),
    )
    op.bulk_insert(counters, [{"name": "invoice", "last_value": 0}])
    op.create_table(
        "invoice_ledger_sync_runs",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("trigger", sa.String(20), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("finished_at", UTCDateTime()),
        sa.Column("updated", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("errors", sa.JSON()),
    )
    op.create_index("ix_invoice_ledger_sync_runs_finished_at", "invoice_ledger_sync_runs", ["finished_at"])


def downgrade() -> None:
    for table in ("invoice_ledger_sync_runs", "invoice_number_counters", "invoice_mapping_rules",
                  "invoice_time_entries", "invoice_payments", "invoice_line_items", "invoices"):
        op.drop_table(table)
