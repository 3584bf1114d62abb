"""An action item's project_id references projects(id) ON DELETE SET NULL (session 31): a project's delete left the
action items naming it with an id that names nothing. The database clears it, so the projects area does not call the
action items area (action_items -> projects is one-way). Ids naming no project are cleared first; an index serves the
delete's SET NULL (the column had none).

Revision ID: action_items_0003
"""
from alembic import op

from chalicelib.migrations.references import add_set_null_reference, drop_reference

revision = "action_items_0003"
down_revision = "action_items_0002"
branch_labels = None
depends_on = "projects_0001"


def upgrade() -> None:
    add_set_null_reference("action_items", "project_id", "projects")
    op.create_index("ix_action_items_project_id", "action_items", ["project_id"])


def downgrade() -> None:
    op.drop_index("ix_action_items_project_id", table_name="action_items")
    drop_reference("action_items", "project_id", "projects")
