"""pg_trgm indexes for substring search (`ILIKE '%term%'`, core.query.contains_text), for the migrations.

On Postgres the extension is created when the server has it (pg_trgm is a trusted extension: the
database owner may create it); when it cannot be, the GIN indexes are skipped (search still works,
by sequential scan) and the migration goes on. Elsewhere (SQLite) a plain index on the column.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op


def trigram_available() -> bool:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return False
    if bind.execute(sa.text("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")).scalar():
        return True
    if not bind.execute(sa.text("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'")).scalar():
        return False
    try:
        with bind.begin_nested():
            bind.execute(sa.text("CREATE EXTENSION IF NOT EXISTS pg_trgm"))
    except sa.exc.DBAPIError:
        return False
    return True


def create_trigram_index(name: str, table: str, column: str) -> None:
    """GIN (column gin_trgm_ops) on Postgres with pg_trgm; a plain index elsewhere; nothing on a Postgres
    without pg_trgm."""
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        op.create_index(name, table, [column])
    elif trigram_available():
        op.create_index(name, table, [column], postgresql_using="gin", postgresql_ops={column: "gin_trgm_ops"})


def drop_trigram_index(name: str, table: str) -> None:
    op.execute(sa.text(f'DROP INDEX IF EXISTS "{name}"'))
