"""Squad names are unique case-insensitively (projects refer to squads by name).

Revision ID: core_0002
"""
import sqlalchemy as sa
from alembic import op

revision = "core_0002"
down_revision = "core_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("uq_squads_name_lower", "squads", [sa.text("lower(name)")], unique=True)


def downgrade() -> None:
    op.drop_index("uq_squads_name_lower", table_name="squads")
