"""Helpers for the core tests: fresh databases beside the test database, token builders."""
from __future__ import annotations

import base64
import json
import secrets
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from tests.pgserver import DATABASE_OPTIONS
from sqlalchemy.engine import make_url


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


class FreshDatabases:
    """Creates new, empty databases beside the test database: a new Postgres database on the test
    server, or a new SQLite file; `drop_all()` removes them."""

    def __init__(self, database_url: str, folder: Path) -> None:
        self.database_url = database_url
        self.folder = folder
        self.drops = []

    def create(self) -> str:
        if is_sqlite(self.database_url):
            return f"sqlite:///{self.folder / f'fresh_{secrets.token_hex(4)}.sqlite3'}"
        name = f"wms_fresh_{secrets.token_hex(4)}"
        admin = create_engine(make_url(self.database_url).set(database="postgres"), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}" {DATABASE_OPTIONS}'))

        def drop() -> None:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()

        self.drops.append(drop)
        return make_url(self.database_url).set(database=name).render_as_string(hide_password=False)

    def drop_all(self) -> None:
        for drop in self.drops:
            drop()


@pytest.fixture
def fresh_database(database_url, tmp_path):
    """`fresh_database()` -> URL of a new, empty database, dropped after the test."""
    databases = FreshDatabases(database_url, tmp_path)
    yield databases.create
    databases.drop_all()


@pytest.fixture(scope="module")
def module_database(database_url, tmp_path_factory):
    """`module_database()` -> URL of a new, empty database kept for the module."""
    databases = FreshDatabases(database_url, tmp_path_factory.mktemp("fresh"))
    yield databases.create
    databases.drop_all()


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def claims(email: str, **overrides) -> dict:
    now = int(time.time())
    values = {"email": email, "iat": now, "exp": now + 600, "sub": email}
    values.update(overrides)
    return {key: value for key, value in values.items() if value is not None}


def unsigned_token(payload: dict, header: dict | None = None) -> str:
    header = header or {"alg": "none", "typ": "JWT"}
    return f"{b64(json.dumps(header).encode())}.{b64(json.dumps(payload).encode())}."


PROJECT_DIR = Path(__file__).resolve().parents[2]
