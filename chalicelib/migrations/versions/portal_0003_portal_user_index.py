"""Portal: an index on portal_users.portal_user_id. Recording a portal user for a company forgets it for the other
companies it was recorded for (session 24: `portal_user_id = :id AND company_id <> :company`, on every portal request
that names a user); the primary key (company_id, portal_user_id) cannot serve that, so it scanned the table. And an
index on portal_notifications (resource_type, resource_id): the notices of a record the portal no longer shows are
withdrawn by their resource (a deleted note's replies, announcement, QBR, budget: session 24).

Revision ID: portal_0003
"""
from alembic import op

revision = "portal_0003"
down_revision = "portal_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_portal_users_portal_user_id", "portal_users", ["portal_user_id"])
    op.create_index("ix_portal_notifications_resource", "portal_notifications", ["resource_type", "resource_id"])


def downgrade() -> None:
    op.drop_index("ix_portal_notifications_resource", table_name="portal_notifications")
    op.drop_index("ix_portal_users_portal_user_id", table_name="portal_users")
