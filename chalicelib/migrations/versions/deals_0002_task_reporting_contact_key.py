"""A task's reported_by_contact_id references contacts(id) ON DELETE SET NULL (session 26): a contact's delete
left the tasks naming it with an id that names nothing, and the tasks area now refuses such an id on a write. The
database clears it, so the deals area does not call the tasks area (tasks -> deals is one-way). Ids naming no
contact are cleared first; an index serves the delete's SET NULL.

Revision ID: deals_0002
"""
from alembic import op

from chalicelib.migrations.references import add_set_null_reference, drop_reference

revision = "deals_0002"
down_revision = "deals_0001"
branch_labels = None
depends_on = "tasks_0001"


def upgrade() -> None:
    add_set_null_reference("tasks", "reported_by_contact_id", "contacts")
    op.create_index("ix_tasks_reported_by_contact_id", "tasks", ["reported_by_contact_id"])


def downgrade() -> None:
    op.drop_index("ix_tasks_reported_by_contact_id", table_name="tasks")
    drop_reference("tasks", "reported_by_contact_id", "contacts")
