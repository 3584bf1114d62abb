"""agents_0003 (session 27): `agent_runs.last_report_at`, the stale-runs job's clock, filled for the runs already
there in one statement: a run's latest applied report, else the time the runner took it, else its creation."""
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import create_engine, inspect, text

from chalicelib.migrations.runner import downgrade, upgrade
from tests.core.conftest import FreshDatabases

pytestmark = pytest.mark.filterwarnings("ignore:Skipped unsupported reflection")


@pytest.fixture
def fresh_database(database_url, tmp_path):
    databases = FreshDatabases(database_url, tmp_path)
    yield databases.create
    databases.drop_all()


@pytest.mark.parametrize("engine_kind", ["database", "sqlite"])
def test_existing_runs_are_heard_of_at_their_last_report(fresh_database, tmp_path, engine_kind):
    url = fresh_database() if engine_kind == "database" else f"sqlite:///{tmp_path / 'heartbeat.sqlite3'}"
    upgrade(url)
    downgrade(url, "agents_0002")
    start = datetime(2026, 11, 1, 8, 0, tzinfo=UTC).replace(tzinfo=None)
    at = {name: start + timedelta(hours=hours) for name, hours in
          (("created", 0), ("taken", 1), ("first_report", 2), ("last_report", 5))}
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO tasks (id, title, is_private, created_at, updated_at) "
                              "VALUES ('t1', 'A task', false, :at, :at)"), {"at": at["created"]})
            for run_id, started in (("reported", at["taken"]), ("taken", at["taken"]), ("queued", None)):
                conn.execute(text("INSERT INTO agent_runs (id, task_id, stage, status, started_at, created_at, "
                                  "updated_at) VALUES (:id, 't1', 'building', 'running', :started, :created, "
                                  ":created)"), {"id": run_id, "started": started, "created": at["created"]})
            for report_id, status, when in (("r1", "running", at["first_report"]), ("r2", "passed", at["last_report"])):
                conn.execute(text("INSERT INTO agent_run_reports (id, run_id, stage, status, created_at) "
                                  "VALUES (:id, 'reported', 'building', :status, :at)"),
                             {"id": report_id, "status": status, "at": when})
    finally:
        engine.dispose()
    upgrade(url)
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            heard = {row.id: row.last_report_at for row in conn.execute(
                text("SELECT id, last_report_at FROM agent_runs"))}
        columns = {column["name"]: column for column in inspect(engine).get_columns("agent_runs")}
        indexes = {index["name"] for index in inspect(engine).get_indexes("agent_runs")}
    finally:
        engine.dispose()

    def stamp(value):
        return (value if isinstance(value, datetime) else datetime.fromisoformat(str(value))).replace(tzinfo=None)

    assert {run_id: stamp(value) for run_id, value in heard.items()} == {
        "reported": at["last_report"], "taken": at["taken"], "queued": at["created"]}
    assert columns["last_report_at"]["nullable"] is False
    assert "ix_agent_runs_status_last_report" in indexes and "ix_agent_runs_status_created" not in indexes
    downgrade(url, "agents_0002")  # and back
    engine = create_engine(url)
    try:
        assert "last_report_at" not in {column["name"] for column in inspect(engine).get_columns("agent_runs")}
        assert "ix_agent_runs_status_created" in {index["name"] for index in inspect(engine).get_indexes("agent_runs")}
    finally:
        engine.dispose()
