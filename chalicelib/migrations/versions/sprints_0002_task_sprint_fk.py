"""A task's sprint_id references sprints(id) ON DELETE SET NULL: deleting a sprint clears it on its tasks
in the database, so the sprints area no longer calls the tasks area (tasks -> sprints is one-way).

Revision ID: sprints_0002
"""
from alembic import op

revision = "sprints_0002"
down_revision = "sprints_0001"
branch_labels = None
depends_on = "tasks_0001"


def upgrade() -> None:
    op.execute("UPDATE tasks SET sprint_id = NULL WHERE sprint_id IS NOT NULL "
               "AND sprint_id NOT IN (SELECT id FROM sprints)")
    with op.batch_alter_table("tasks") as batch:
        batch.create_foreign_key("fk_tasks_sprint_id_sprints", "sprints", ["sprint_id"], ["id"], ondelete="SET NULL")


def downgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.drop_constraint("fk_tasks_sprint_id_sprints", type_="foreignkey")
