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
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str | None = None, revision: str = "base") -> None:
    command.downgrade(alembic_config(url), revision)
