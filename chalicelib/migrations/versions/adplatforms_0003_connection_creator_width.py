"""Ad platforms: a connection's creator holds `portal:` and a portal user id of up to 100 characters (the
portal's X-Portal-User-Id bound), so 120 characters. SQLite does not enforce a VARCHAR's length: Postgres only
(a batch rebuild there would drop ad_connections, and its foreign keys would take the daily metrics with it).

Revision ID: adplatforms_0003
"""
import sqlalchemy as sa
from alembic import op

revision = "adplatforms_0003"
down_revision = "adplatforms_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("ad_connections", "created_by", type_=sa.String(120), existing_type=sa.String(100))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("ad_connections", "created_by", type_=sa.String(100), existing_type=sa.String(120))
