"""Indexes for the task list's order and filters (issue 11 item 3): the list order (sort_order, due_date; created_at
newest first and id are sorted incrementally within them), due_date (today, this week, overdue), the priority_id
and type_id filters, and pg_trgm GIN indexes on title and description for search (chalicelib/migrations/trigram.py).

Revision ID: tasks_0002
"""
from alembic import op

from chalicelib.migrations.trigram import create_trigram_index, drop_trigram_index

revision = "tasks_0002"
down_revision = "tasks_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_tasks_list_order", "tasks", ["sort_order", "due_date"])
    op.create_index("ix_tasks_due_date", "tasks", ["due_date"])
    op.create_index("ix_tasks_priority_id", "tasks", ["priority_id"])
    op.create_index("ix_tasks_type_id", "tasks", ["type_id"])
    create_trigram_index("ix_tasks_title_trgm", "tasks", "title")
    create_trigram_index("ix_tasks_description_trgm", "tasks", "description")


def downgrade() -> None:
    drop_trigram_index("ix_tasks_description_trgm", "tasks")
    drop_trigram_index("ix_tasks_title_trgm", "tasks")
    op.drop_index("ix_tasks_type_id", table_name="tasks")
    op.drop_index("ix_tasks_priority_id", table_name="tasks")
    op.drop_index("ix_tasks_due_date", table_name="tasks")
    op.drop_index("ix_tasks_list_order", table_name="tasks")
