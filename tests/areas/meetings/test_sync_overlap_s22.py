"""Two meetings-sync runs at once (session 22's retries audit): a run killed at its 300 s meets the next 5-minute
tick and Lambda's retry. The `meetings-sync` lock covered only each batch's writes, so both runs asked the AI
provider about the same new notes (5 new notes, 10 AI calls). Now a run holds a run-level lock (a session-level
advisory lock) from its start to its end; a run that finds it held does not wait: it skips, and answers so."""
from __future__ import annotations

import os
import secrets
import threading
import time

import pytest
from sqlalchemy import func, select

from chalicelib.areas.meetings.models import Meeting
from tests.factories import make_user

postgres_only = pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite", reason="advisory locks: Postgres")


class Killed(BaseException):
    """The function's timeout: nothing after it runs in this invocation."""


@pytest.fixture
def people(db):
    return [make_user(db, email=f"0{n}-person@agency.test", name=name)
            for n, name in enumerate(("Alice Able", "Bob Baker", "Cara Cole"))]


def _ai(monkeypatch, during=None):
    """The AI provider, counting its calls; `during(call number)` runs inside each call."""
    from chalicelib.providers import ai as ai_pkg

    real = ai_pkg.get_ai
    calls: list[str] = []
    lock = threading.Lock()

    class Counting:
        def __init__(self):
            self.inner = real()

        def analyse_meeting(self, **kw):
            with lock:
                calls.append(kw["title"])
                number = len(calls)
            if during is not None:
                during(number)
            return self.inner.analyse_meeting(**kw)

    monkeypatch.setattr(ai_pkg, "get_ai", lambda *a, **k: Counting())
    return calls


@postgres_only
def test_a_sync_started_while_another_runs_skips_and_asks_no_one(db, people, monkeypatch):
    from chalicelib.areas.meetings.service_sync import run_sync

    inner = []
    calls = _ai(monkeypatch, during=lambda number: inner.append(run_sync(force=True)) if number == 1 else None)
    outer = run_sync(force=True)
    assert inner == [{"skipped": "another sync is running"}]
    assert outer["created"] == 5
    assert len(calls) == db.scalar(select(func.count()).select_from(Meeting)) == 5


def test_a_run_killed_part_way_does_not_keep_the_next_one_out(db, people, monkeypatch):
    """The lock goes with the run: a killed run's connection (here, its `finally`) lets it go, and the retry runs."""
    from chalicelib.areas.meetings.service_sync import run_sync

    def kill(number):
        if number == 4:  # the second batch's first analysis
            raise Killed()

    calls = _ai(monkeypatch, during=kill)
    with pytest.raises(Killed):
        run_sync(force=True)
    retry = run_sync(force=True)
    assert "skipped" not in retry and retry["created"] == 2  # the first batch (3 notes) was kept
    assert len(calls) == 4 + 2


@pytest.fixture
def committed(database_url, db_connection):
    """A database of its own whose units of work commit for real, so that two threads' runs meet there."""
    from sqlalchemy import create_engine, text
    from tests.pgserver import DATABASE_OPTIONS
    from sqlalchemy.engine import make_url

    from chalicelib.core import db as core_db
    from chalicelib.core.settings import reset_settings
    from chalicelib.migrations.runner import upgrade

    name = f"wms_meet_{secrets.token_hex(4)}"
    server = make_url(database_url)
    admin = create_engine(server.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}" {DATABASE_OPTIONS}'))
    url = server.set(database=name).render_as_string(hide_password=False)
    upgrade(url)
    old = os.environ["DATABASE_URL"]
    os.environ["DATABASE_URL"] = url
    reset_settings()
    core_db.reset_engine()
    core_db.override_bind(None)
    try:
        yield url
    finally:
        core_db.reset_engine()
        os.environ["DATABASE_URL"] = old
        reset_settings()
        core_db.reset_engine()
        core_db.override_bind(db_connection)
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@postgres_only
def test_two_overlapping_runs_pay_for_each_note_once(app, committed, monkeypatch):
    from sqlalchemy import create_engine

    from chalicelib.areas.meetings import service_sync

    calls = _ai(monkeypatch, during=lambda number: time.sleep(0.5))  # an AI call takes seconds
    results, errors = [], []
    start = threading.Barrier(2)

    def run():
        try:
            start.wait()
            results.append(service_sync.run_sync(force=True))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    engine = create_engine(committed)
    with engine.connect() as conn:
        meetings = conn.scalar(select(func.count()).select_from(Meeting.__table__))
    engine.dispose()
    assert meetings == 5 and len(calls) == meetings, (calls, results)
    assert {"skipped": "another sync is running"} in results
