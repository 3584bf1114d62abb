"""Squad names are unique case-insensitively (projects refer to squads by name).

The code before this revision checked no squad name, so "Design" and "design" may both be there: all but the oldest
of each lower(name) group are renamed first, `<name> (<id>)` within the column's 200 characters (one statement;
session 27, docs/deploy.md "Migrations with data present").

Revision ID: core_0002
"""
import sqlalchemy as sa
from alembic import op

revision = "core_0002"
down_revision = "core_0001"
branch_labels = None
depends_on = None

NAME_LENGTH = 200


def upgrade() -> None:
    op.execute(
        f"UPDATE squads SET name = substr(name, 1, {NAME_LENGTH} - length(' (' || id || ')')) || ' (' || id || ')' "
        "WHERE EXISTS (SELECT 1 FROM squads older WHERE lower(older.name) = lower(squads.name) AND "
        "(older.created_at < squads.created_at OR (older.created_at = squads.created_at AND older.id < squads.id)))")
    op.create_index("uq_squads_name_lower", "squads", [sa.text("lower(name)")], unique=True)


def downgrade() -> None:
    op.drop_index("uq_squads_name_lower", table_name="squads")
