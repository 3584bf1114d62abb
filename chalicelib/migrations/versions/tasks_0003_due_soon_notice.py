"""Tasks: the `task_due_soon` notice's marker, the due date it was sent for and the assignee it went to (the hourly
`task-due-soon` job tells an assignee once per assignment and due date; docs/decisions/tasks.md, "Notifications").
Null on every task this migration finds: a task due soon is told on the job's first run.

Revision ID: tasks_0003
"""
import sqlalchemy as sa
from alembic import op

revision = "tasks_0003"
down_revision = "tasks_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tasks", sa.Column("due_soon_noticed_for", sa.Date()))
    op.add_column("tasks", sa.Column("due_soon_noticed_to", sa.String(36)))


def downgrade() -> None:
    op.drop_column("tasks", "due_soon_noticed_to")
    op.drop_column("tasks", "due_soon_noticed_for")
