"""Invoices: a time entry an invoice bills cannot be deleted (the key from invoice_time_entries to time_entries is
ON DELETE RESTRICT; it was CASCADE). A head's delete of an approved, billed entry removed the link and left the
invoice's line charging for hours no entry recorded. The invoice line's removal or the invoice's deletion frees the
entry first, as before. SQLite would need a table rebuild to change a key: Postgres only (SQLite enforces no
foreign key unless asked, and its tests run with them off).

Revision ID: invoices_0004
"""
from alembic import op

revision = "invoices_0004"
down_revision = "invoices_0003"
branch_labels = None
depends_on = None

NAME = "fk_invoice_time_entries_time_entry_id_time_entries"


def _key(ondelete: str) -> None:
    op.drop_constraint(NAME, "invoice_time_entries", type_="foreignkey")
    op.create_foreign_key(NAME, "invoice_time_entries", "time_entries", ["time_entry_id"], ["id"], ondelete=ondelete)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _key("RESTRICT")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _key("CASCADE")
