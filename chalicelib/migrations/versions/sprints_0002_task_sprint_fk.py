"""A task's sprint_id references sprints(id) ON DELETE SET NULL: deleting a sprint clears it on its tasks
in the database, so the sprints area no longer calls the tasks area (tasks -> sprints is one-way).

Revision ID: sprints_0002
"""
from chalicelib.migrations.references import add_set_null_reference, drop_reference

revision = "sprints_0002"
down_revision = "sprints_0001"
branch_labels = None
depends_on = "tasks_0001"


def upgrade() -> None:
    add_set_null_reference("tasks", "sprint_id", "sprints")


def downgrade() -> None:
    drop_reference("tasks", "sprint_id", "sprints")
