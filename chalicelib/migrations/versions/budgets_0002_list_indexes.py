"""An index for the budget list's order (created_at DESC, id) (issue 11 item 3): the first page is read
from the index scanned backwards (ties sorted incrementally) instead of sorting every row; its filters had theirs.

Revision ID: budgets_0002
"""
from alembic import op

revision = "budgets_0002"
down_revision = "budgets_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_budgets_list_order", "budgets", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_budgets_list_order", table_name="budgets")
