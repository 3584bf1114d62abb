"""Alembic environment: the URL comes from the settings (DATABASE_URL), or from the caller's config.

SQLite: core.db turns `PRAGMA foreign_keys=ON` on every connection, and batch_alter_table copies a table (CREATE
the copy, DROP the old one, rename): with the keys on, that DROP deletes the old table's rows one by one and fires
the ON DELETE CASCADE / SET NULL of every table referencing it (a task's todos, watchers and subtasks, a run's
reports...). The migration connection therefore runs with the keys off (set before any transaction: the pragma is a
no-op inside one), each revision checks `PRAGMA foreign_key_check` before its commit and fails on a dangling key,
and the keys are back on once the migrations are done (docs/deploy.md, "Migrations with data present")."""
from __future__ import annotations

from contextlib import contextmanager

from alembic import context
from chalicelib.core.db import Base, make_engine

config = context.config
target_metadata = Base.metadata


def _sqlite_driver(connection):
    return connection.connection.driver_connection if connection.dialect.name == "sqlite" else None


@contextmanager
def _sqlite_foreign_keys_off(connection):
    driver = _sqlite_driver(connection)
    if driver is None:
        yield
        return
    if connection.in_transaction():
        raise RuntimeError("SQLite migrations turn the foreign keys off, which a transaction forbids: pass a "
                           "connection with no transaction begun")
    driver.execute("PRAGMA foreign_keys=OFF")
    if driver.execute("PRAGMA foreign_keys").fetchone()[0] != 0:
        raise RuntimeError("SQLite kept its foreign keys on for the migrations: a table copy would empty the "
                           "tables referencing it")
    try:
        yield
    finally:
        if connection.in_transaction():  # alembic committed each revision; what is left is its reads
            connection.rollback()
        driver.execute("PRAGMA foreign_keys=ON")


def _no_dangling_keys(ctx, step, heads, run_args) -> None:
    """on_version_apply: inside the revision's transaction, before its commit (SQLite only)."""
    if ctx.connection is None or ctx.connection.dialect.name != "sqlite":
        return
    dangling = ctx.connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if dangling:
        shown = ", ".join(f"{row[0]} rowid {row[1]} -> {row[2]}" for row in dangling[:5])
        done = ("upgrade to " if step.is_upgrade else "downgrade of ") + step.up_revision_id
        raise RuntimeError(f"after the {done}, {len(dangling)} foreign key(s) name no row ({shown}): nothing of it "
                           "is kept")


def _run(connection) -> None:
    with _sqlite_foreign_keys_off(connection):
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True,
                          on_version_apply=_no_dangling_keys)
        with context.begin_transaction():
            context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url") or None
    engine = make_engine(url)
    with engine.connect() as connection:
        _run(connection)
    engine.dispose()


if context.is_offline_mode():
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata,
                      literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations_online()
