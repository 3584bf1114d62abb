"""The concurrency tests' server: Chalice's local server (threaded, `tests/concurrency/server.py`) in a
subprocess on a database of its own on the test Postgres server (created, migrated and dropped here), one for the
whole session (each test makes its own records: users with random e-mails and what they own), so that each
request commits for real and concurrent requests meet in the database as they would in production."""
from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

PORTAL_TOKEN = "concurrency-portal-token-0123456789"  # the portal's service token in the server's environment


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def live(database_url, app):  # app: every area's models imported, as the factories need
    """(base URL, sessionmaker) of a server on a database of its own."""
    from sqlalchemy import create_engine, text
    from tests.pgserver import DATABASE_OPTIONS
    from sqlalchemy.engine import make_url
    from sqlalchemy.orm import sessionmaker

    from chalicelib.migrations.runner import upgrade

    name = f"wms_conc_{secrets.token_hex(4)}"
    server = make_url(database_url)
    admin = create_engine(server.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}" {DATABASE_OPTIONS}'))
    url = server.set(database=name).render_as_string(hide_password=False)
    engine = create_engine(url)
    process = None
    try:
        upgrade(url)
        port = _free_port()
        env = dict(os.environ, DATABASE_URL=url, PORTAL_SERVICE_TOKEN=PORTAL_TOKEN)
        process = subprocess.Popen([sys.executable, "-m", "tests.concurrency.server", str(port)],
                                   cwd=Path(__file__).resolve().parents[2], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError("the test server exited")
            try:
                with urllib.request.urlopen(base + "/api/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the test server did not answer /api/health within 60 s")
            time.sleep(0.2)
        yield base, sessionmaker(bind=engine, expire_on_commit=False)
    finally:
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        engine.dispose()
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
