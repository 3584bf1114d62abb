"""A project's sla_policy_id references sla_policies(id) ON DELETE SET NULL: deleting a policy clears it on its
projects in the database, and a project can no longer name a policy that does not exist (the projects area
checks it on write, 400; the key holds it).

Revision ID: sla_0002
"""
from chalicelib.migrations.references import add_set_null_reference, drop_reference

revision = "sla_0002"
down_revision = "sla_0001"
branch_labels = None
depends_on = "projects_0001"


def upgrade() -> None:
    add_set_null_reference("projects", "sla_policy_id", "sla_policies")


def downgrade() -> None:
    drop_reference("projects", "sla_policy_id", "sla_policies")
