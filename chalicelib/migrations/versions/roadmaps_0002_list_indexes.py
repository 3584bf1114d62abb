"""An index for the roadmap list's order (created_at DESC, id) (issue 11 item 3): the first page is read
from the index scanned backwards (ties sorted incrementally) instead of sorting every row; its filters had theirs.

Revision ID: roadmaps_0002
"""
from alembic import op

revision = "roadmaps_0002"
down_revision = "roadmaps_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_roadmaps_list_order", "roadmaps", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_roadmaps_list_order", table_name="roadmaps")
