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
import threading
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


# ---------------------------------------------------------------- two sides on connections of their own (lock order)

def committed_rows(engine, forget):
    """The body of a module's fixture `made` (`yield from`): yields the list its tests append what they committed
    to, then, once every test's own transaction has ended (a module fixture's teardown runs after theirs), calls
    `forget(conn, row)` for each in one transaction of `engine`: other tests count rows of these tables."""
    rows = []
    yield rows
    with engine.begin() as conn:
        for row in rows:
            forget(conn, row)


def paused_in_thread(monkeypatch, module, name: str):
    """`module.name` patched (`monkeypatch`) so that, called in a thread whose id is in the answer's `holder`, it waits
    (10 s at the most) until the answer's `gate` is set, then runs. Answers (gate, holder)."""
    gate, holder = threading.Event(), set()
    original = getattr(module, name)

    def paused(*args, **kwargs):
        if threading.get_ident() in holder:
            gate.wait(10)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, paused)
    return gate, holder


def own_unit_of_work(engine):
    """A unit of work whose session is on a connection of its own of `engine` (committed data; expire_on_commit
    off), its own session closed."""
    from sqlalchemy.orm import Session

    from chalicelib.core.db import UnitOfWork

    uow = UnitOfWork()
    uow.session.close()
    uow.session = Session(bind=engine, expire_on_commit=False)
    return uow


def first_side(engine, user_id, work, monkeypatch, module, pause_before: str, lock_timeout: str | None = None):
    """Run `work(ctx)` (as `user_id`) in a thread, in a unit of work on a connection of its own (`lock_timeout` set
    for its transaction when given: a side stuck on the test's transaction fails instead of hanging), committed at
    the end; it pauses before calling `module.pause_before` (it holds its rows by then) until the answer's `gate` is
    set. Answers (thread, outcomes, gate): outcomes gets "committed" or the exception raised."""
    from sqlalchemy import text

    from chalicelib.core.auth import principals_of
    from chalicelib.core.context import Context

    outcomes = []
    gate, holder = paused_in_thread(monkeypatch, module, pause_before)

    def run():
        holder.add(threading.get_ident())
        uow = own_unit_of_work(engine)
        try:
            if lock_timeout is not None:
                uow.session.execute(text(f"SET LOCAL lock_timeout = '{lock_timeout}'"))
            ctx = Context(uow=uow, principal=principals_of(uow.session, [user_id])[user_id])
            work(ctx)
            uow.session.commit()
            outcomes.append("committed")
        except Exception as exc:  # noqa: BLE001 - the test reports what it got
            uow.session.rollback()
            outcomes.append(exc)
        finally:
            uow.session.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcomes, gate


def race(first, second):
    """`first` (a `first_side`) holds its rows; `second` (an API call) starts and waits; `first` goes on. Answers
    (the API's answer, the first side's outcomes)."""
    thread, outcomes, gate = first
    time.sleep(0.3)  # the first side holds its rows and waits at its pause
    answers = []
    request = threading.Thread(target=lambda: answers.append(second()))
    request.start()
    time.sleep(0.3)  # the API call waits for the first side's rows
    gate.set()
    request.join(30)
    thread.join(30)
    assert answers and outcomes, "a side did not finish"
    return answers[0], outcomes
