"""Shared set-up for the fuzzer and the benchmarks: a fresh Postgres database, migrated.

`fresh_database()` creates `wms_bench_<random>` on the server of `TEST_DATABASE_URL` (dropped at
the end), or starts a throwaway cluster from the machine's server binaries (tests/pgserver.py).
`service_environment()` is the environment a served copy of the service runs with: the database,
a private data folder, an HS256 secret, in-process queue and local uploads. Loopback only.
"""
from __future__ import annotations

import os
import secrets
import socket
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

PROJECT_DIR = Path(__file__).resolve().parents[1]
RESULTS_DIR = PROJECT_DIR / "bench" / "results"
if str(PROJECT_DIR) not in sys.path:
    sys.path.insert(0, str(PROJECT_DIR))

# Variables that would point a served copy at real infrastructure: never inherited.
_CLEAR = ("AUTH_JWKS_URL", "AUTH_ISSUER", "AUTH_AUDIENCE", "UPLOADS_BUCKET", "NOTIFICATIONS_QUEUE_URL",
          "AWS_ENDPOINT_URL", "PORTAL_SERVICE_TOKEN", "WMS_MODULES", "DATABASE_URL", "SECRETS_KEY",
          "AI_API_KEY", "CHAT_BOT_TOKEN", "VAPID_PRIVATE_KEY")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def postgres_server() -> Iterator[str]:
    """A server URL (postgresql+pg8000://...): TEST_DATABASE_URL's, or a throwaway cluster."""
    server = os.environ.get("TEST_DATABASE_URL")
    if server:
        yield server
        return
    from tests.pgserver import Cluster

    cluster = Cluster()
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@contextmanager
def fresh_database(prefix: str = "wms_bench") -> Iterator[str]:
    """A new, empty database on the server; yields its URL and drops it afterwards."""
    with fresh_databases(prefix, 1) as urls:
        yield urls[0]


@contextmanager
def fresh_databases(prefix: str, count: int) -> Iterator[list[str]]:
    """`count` new, empty databases on one server (for figures compared call by call); dropped afterwards."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    with postgres_server() as server:
        names = [f"{prefix}_{i}_{secrets.token_hex(4)}" for i in range(count)]
        admin = create_engine(server, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            for name in names:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield [make_url(server).set(database=name).render_as_string(hide_password=False) for name in names]
        finally:
            try:
                from chalicelib.core.db import reset_engine

                reset_engine()
            except Exception:  # noqa: BLE001 - best effort before the drop
                pass
            with admin.connect() as conn:
                for name in names:
                    conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()


def service_environment(database_url: str, data_dir: str | None = None) -> dict[str, str]:
    data_dir = data_dir or tempfile.mkdtemp(prefix="wms-bench-data-")
    env = {key: value for key, value in os.environ.items() if key not in _CLEAR}
    env.update({
        "DATABASE_URL": database_url,
        "WMS_DATA_DIR": data_dir,
        "WMS_STAGE": "dev",
        "AUTH_JWT_SECRET": "bench-" + secrets.token_urlsafe(32),
        "UPLOADS_DIR": str(Path(data_dir) / "uploads"),
        "AI_MODE": "sandbox", "MAIL_MODE": "sandbox", "CHAT_MODE": "sandbox", "PUSH_MODE": "sandbox",
        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "ap-southeast-2",
        "PYTHONPATH": str(PROJECT_DIR),
    })
    return env


def apply_environment(env: dict[str, str]) -> None:
    """Make this process use `env` (settings and engine are re-read)."""
    for key in _CLEAR:
        os.environ.pop(key, None)
    os.environ.update(env)
    from chalicelib.core.db import reset_engine
    from chalicelib.core.settings import reset_settings

    reset_settings()
    reset_engine()


def migrate(database_url: str) -> None:
    from chalicelib.migrations.runner import upgrade

    upgrade(database_url)


def create_user(email: str, name: str, access_level: str = "executive") -> str:
    """A user in the current environment's database; returns its id."""
    from chalicelib.core.db import unit_of_work
    from chalicelib.core.models import User

    with unit_of_work() as uow:
        user = User(email=email.lower(), name=name, access_level=access_level, is_active=True)
        uow.session.add(user)
        uow.session.flush()
        return user.id


def token_for(email: str) -> str:
    from chalicelib.core.auth import issue_dev_token

    return issue_dev_token(email, ttl_seconds=6 * 3600)


def write_json(path: Path, data) -> None:
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")
