"""Indexes for the project list's order (created_at newest first, id) and pg_trgm GIN indexes on name and
description for search (issue 11 item 3); its filters (company, status, type, owner, squad) had theirs.

Revision ID: projects_0002
"""
from alembic import op

from chalicelib.migrations.trigram import create_trigram_index, drop_trigram_index

revision = "projects_0002"
down_revision = "projects_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_projects_list_order", "projects", ["created_at"])
    create_trigram_index("ix_projects_name_trgm", "projects", "name")
    create_trigram_index("ix_projects_description_trgm", "projects", "description")


def downgrade() -> None:
    drop_trigram_index("ix_projects_description_trgm", "projects")
    drop_trigram_index("ix_projects_name_trgm", "projects")
    op.drop_index("ix_projects_list_order", table_name="projects")
