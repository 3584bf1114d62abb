"""Invoices: a time entry an invoice bills cannot be deleted (the key from invoice_time_entries to time_entries is
ON DELETE RESTRICT; it was CASCADE). A head's delete of an approved, billed entry removed the link and left the
invoice's line charging for hours no entry recorded. The invoice line's removal or the invoice's deletion frees the
entry first, as before. SQLite changes a key only by copying the table (batch_alter_table; env.py turns its keys
off for the copy): it ran on Postgres only until session 27, but core.db turns SQLite's foreign keys on, so the
embedded default (`make run`) still cascaded the delete and lost the link. A SQLite database migrated past this
revision before then keeps CASCADE.

Revision ID: invoices_0004
"""
from alembic import op

revision = "invoices_0004"
down_revision = "invoices_0003"
branch_labels = None
depends_on = None

NAME = "fk_invoice_time_entries_time_entry_id_time_entries"


def _key(ondelete: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint(NAME, "invoice_time_entries", type_="foreignkey")
        op.create_foreign_key(NAME, "invoice_time_entries", "time_entries", ["time_entry_id"], ["id"],
                              ondelete=ondelete)
        return
    with op.batch_alter_table("invoice_time_entries", recreate="always") as batch:
        batch.drop_constraint(NAME, type_="foreignkey")
        batch.create_foreign_key(NAME, "time_entries", ["time_entry_id"], ["id"], ondelete=ondelete)


def upgrade() -> None:
    _key("RESTRICT")


def downgrade() -> None:
    _key("CASCADE")
