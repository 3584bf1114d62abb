"""A time entry's task_id references tasks(id) ON DELETE SET NULL (session 31): a task's delete (with its subtasks)
left the entries logged on it naming a task that no longer exists. The database clears it, so the tasks area does
not call the timesheets area (timesheets -> tasks is one-way). Ids naming no task are cleared first; the column's
index (timesheets_0001) serves the delete's SET NULL.

Revision ID: timesheets_0004
"""
from chalicelib.migrations.references import add_set_null_reference, drop_reference

revision = "timesheets_0004"
down_revision = "timesheets_0003"
branch_labels = None
depends_on = "tasks_0001"


def upgrade() -> None:
    add_set_null_reference("time_entries", "task_id", "tasks")


def downgrade() -> None:
    drop_reference("time_entries", "task_id", "tasks")
