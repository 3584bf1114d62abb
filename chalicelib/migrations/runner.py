"""Apply or revert migrations programmatically (CLI, tests, the migration Lambda function).

Every area has its own migration branch (`<area>_0001`, ...) that starts from `core_0001`, so
`upgrade heads` applies them all and no two areas edit one file.
"""
from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

HERE = Path(__file__).resolve().parent


def alembic_config(url: str | None = None, connection=None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(HERE))
    if url:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def upgrade(url: str | None = None, revision: str = "heads") -> None:
    """`heads`: each area branch's head in turn (sorted), each `upgrade` applying what that head still needs.
    One `upgrade heads` over thirty branches that all start at core_0001 and depend on each other's first
    revisions trips Alembic's head bookkeeping (KeyError 'core_0001' in HeadMaintainer._delete_version);
    upgrading one head at a time gives the same schema, and a second run applies nothing."""
    config = alembic_config(url)
    if revision != "heads":
        command.upgrade(config, revision)
        return
    from alembic.script import ScriptDirectory

    for head in sorted(ScriptDirectory.from_config(config).get_heads()):
        command.upgrade(config, head)


def downgrade(url: str | None = None, revision: str = "base") -> None:
    command.downgrade(alembic_config(url), revision)
