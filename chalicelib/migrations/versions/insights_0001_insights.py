"""Insights: the capacity heatmap's projection of projects (a cell per company and project type), filled from
the projects that already have both.

Revision ID: insights_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "insights_0001"
down_revision = "core_0001"
branch_labels = ("insights",)
depends_on = "projects_0001"


def upgrade() -> None:
    op.create_table('capacity_projects',
    sa.Column('project_id', sa.String(length=36), nullable=False),
    sa.Column('company_id', sa.String(length=36), nullable=False),
    sa.Column('project_type_id', sa.String(length=36), nullable=False),
    sa.Column('status', sa.String(length=50), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_capacity_projects_project_id_projects'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('project_id', name=op.f('pk_capacity_projects'))
    )
    op.create_index('ix_capacity_projects_cell', 'capacity_projects', ['company_id', 'project_type_id'], unique=False)
    op.execute("INSERT INTO capacity_projects (project_id, company_id, project_type_id, status, created_at, updated_at) "
               "SELECT id, company_id, type_id, status, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP FROM projects "
               "WHERE company_id IS NOT NULL AND type_id IS NOT NULL")


def downgrade() -> None:
    op.drop_table("capacity_projects")
