"""A later area's reference into an earlier area's table, for the migrations: the earlier table's plain id
column becomes a foreign key ON DELETE SET NULL (docs/area-contract.md, "Other areas": the database cleans
up across areas). Ids that name no row are cleared first, so the key can be created on any data.
"""
from __future__ import annotations

from alembic import op


def add_set_null_reference(table: str, column: str, referred: str) -> None:
    """`table.column` references `referred(id)` ON DELETE SET NULL, named `fk_<table>_<column>_<referred>`."""
    # NOT EXISTS, an anti join: `NOT IN (SELECT id ...)` is hashed only while the referred ids fit work_mem, and
    # past it Postgres scans them once per row (65 s at 300k contacts; docs/deploy.md, "Migrations with data present")
    op.execute(f"UPDATE {table} SET {column} = NULL WHERE {column} IS NOT NULL "
               f"AND NOT EXISTS (SELECT 1 FROM {referred} WHERE {referred}.id = {table}.{column})")
    with op.batch_alter_table(table) as batch:
        batch.create_foreign_key(f"fk_{table}_{column}_{referred}", referred, [column], ["id"], ondelete="SET NULL")


def drop_reference(table: str, column: str, referred: str) -> None:
    with op.batch_alter_table(table) as batch:
        batch.drop_constraint(f"fk_{table}_{column}_{referred}", type_="foreignkey")
