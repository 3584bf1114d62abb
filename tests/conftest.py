"""Test harness: a fresh, migrated database per run; one rolled-back transaction per test.

Database: WMS_TEST_DB=sqlite runs on a SQLite file; otherwise PostgreSQL: a new database
`wms_test_<random>` on the server of TEST_DATABASE_URL, or a throwaway cluster started from the
machine's server binaries (tests/pgserver.py). Each test runs inside an outer transaction that
is rolled back; the app's sessions join it through savepoints (SQLAlchemy's documented recipe).
"""
from __future__ import annotations

import json as jsonlib
import os
import secrets
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parents[1]
_DATA = tempfile.mkdtemp(prefix="wms-test-data-")
_CLEAR = ("AUTH_JWKS_URL", "AUTH_ISSUER", "AUTH_AUDIENCE", "UPLOADS_BUCKET", "NOTIFICATIONS_QUEUE_URL",
          "AWS_ENDPOINT_URL", "PORTAL_SERVICE_TOKEN", "WMS_MODULES", "DATABASE_URL", "SECRETS_KEY")
for _name in _CLEAR:
    os.environ.pop(_name, None)
os.environ.update({
    "WMS_DATA_DIR": _DATA,
    "WMS_STAGE": "test",
    "WMS_CHECK_RESPONSES": "1",
    "AUTH_JWT_SECRET": "test-secret-" + "x" * 40,
    "UPLOADS_DIR": str(Path(_DATA) / "uploads"),
    "ORG_TIMEZONE": os.environ.get("ORG_TIMEZONE", "Australia/Sydney"),
    "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "ap-southeast-2",
})


def _create_postgres_database(server_url: str) -> tuple[str, callable]:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from tests.pgserver import DATABASE_OPTIONS

    name = f"wms_test_{secrets.token_hex(4)}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}" {DATABASE_OPTIONS}'))
    url = make_url(server_url).set(database=name).render_as_string(hide_password=False)

    def drop() -> None:
        from chalicelib.core.db import reset_engine

        reset_engine()
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url, drop


@pytest.fixture(scope="session")
def database_url():
    cleanups = []
    if os.environ.get("WMS_TEST_DB") == "sqlite":
        url = f"sqlite:///{Path(_DATA) / 'test.sqlite3'}"
    else:
        server = os.environ.get("TEST_DATABASE_URL")
        if not server:
            from tests.pgserver import Cluster

            try:
                cluster = Cluster()
            except RuntimeError as exc:
                pytest.exit(str(exc), returncode=3)
            server = cluster.start()
            cleanups.append(cluster.stop)
        url, drop = _create_postgres_database(server)
        cleanups.insert(0, drop)
    os.environ["DATABASE_URL"] = url
    from chalicelib.core.db import reset_engine
    from chalicelib.core.settings import reset_settings
    from chalicelib.migrations.runner import upgrade

    reset_settings()
    reset_engine()
    upgrade(url)
    yield url
    for cleanup in cleanups:
        cleanup()


@pytest.fixture(scope="session")
def engine(database_url):
    from chalicelib.core.db import get_engine

    return get_engine()


@pytest.fixture(autouse=True)
def db_connection(request, engine):
    """The outer transaction of one test; every unit of work joins it and it is rolled back."""
    from chalicelib.core import db as core_db
    from chalicelib.core.settings import reset_settings

    connection = engine.connect()
    transaction = connection.begin()
    core_db.override_bind(connection)
    yield connection
    core_db.override_bind(None)
    if transaction.is_active:
        transaction.rollback()
    connection.close()
    reset_settings()


@pytest.fixture
def db(db_connection):
    """A session for factories and assertions, inside the test's transaction."""
    from sqlalchemy.orm import Session

    session = Session(bind=db_connection, join_transaction_mode="create_savepoint", expire_on_commit=False)
    yield session
    session.close()


@pytest.fixture(scope="session")
def app(database_url):
    from app import app as chalice_app

    return chalice_app


@pytest.fixture
def client(app):
    from chalice.test import Client

    with Client(app, stage_name="dev", project_dir=str(PROJECT_DIR)) as test_client:
        yield test_client


class ApiResponse:
    def __init__(self, raw) -> None:
        self.raw = raw
        self.status = raw.status_code
        self.headers = {key.lower(): value for key, value in (raw.headers or {}).items()}
        self.body = raw.body or b""

    @property
    def json(self):
        return jsonlib.loads(self.body) if self.body else None

    def __repr__(self) -> str:
        return f"<ApiResponse {self.status} {self.body[:300]!r}>"


class Api:
    """HTTP through the Chalice test client: `api.post("/api/x", json={...}, as_=user)`."""

    def __init__(self, client) -> None:
        self.client = client

    def token_for(self, user) -> str:
        from chalicelib.core.auth import issue_dev_token

        return issue_dev_token(user.email if hasattr(user, "email") else user)

    def request(self, method: str, path: str, *, as_=None, json=None, body=None, headers=None, token=None):
        headers = dict(headers or {})
        if as_ is not None:
            token = self.token_for(as_)
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if json is not None:
            body = jsonlib.dumps(json)
            headers.setdefault("Content-Type", "application/json")
        raw = self.client.http.request(method=method, path=path, headers=headers, body=body or b"")
        return ApiResponse(raw)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def put(self, path, **kw):
        return self.request("PUT", path, **kw)

    def patch(self, path, **kw):
        return self.request("PATCH", path, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)


@pytest.fixture
def api(client):
    return Api(client)


@pytest.fixture
def exec_user(db):
    """An active executive (every tool at manage by default)."""
    from tests.factories import make_user

    return make_user(db, access_level="executive", name="Erin Exec")


@pytest.fixture
def employee(db):
    """An active employee with the default permissions of that level."""
    from tests.factories import make_user

    return make_user(db, access_level="employee", name="Emma Employee")


@pytest.fixture
def set_env(monkeypatch):
    """Change settings for one test: `set_env(AI_MODE="off")`."""
    from chalicelib.core.aws import reset_clients
    from chalicelib.core.settings import get_settings, reset_settings

    def apply(**values):
        for key, value in values.items():
            if value is None:
                monkeypatch.delenv(key, raising=False)
            else:
                monkeypatch.setenv(key, str(value))
        reset_settings()
        reset_clients()
        # read now: the Chalice test client runs each request with os.environ updated from .chalice/config.json,
        # so settings first read inside a request would take that file's value of a variable set here
        # (ORG_TIMEZONE, say), not this one
        try:
            get_settings()
        except Exception:  # noqa: BLE001 - settings that cannot load: the test reads them itself (a failing start)
            reset_settings()

    yield apply
    monkeypatch.undo()
    reset_settings()
    reset_clients()


@pytest.fixture
def aws(set_env):
    """moto for S3 and SQS: an uploads bucket and the notifications queue (with its DLQ)."""
    from moto import mock_aws

    with mock_aws():
        import boto3

        region = "ap-southeast-2"
        s3 = boto3.client("s3", region_name=region)
        s3.create_bucket(Bucket="wms-test-uploads", CreateBucketConfiguration={"LocationConstraint": region})
        sqs = boto3.client("sqs", region_name=region)
        dlq = sqs.create_queue(QueueName="wms-notifications-dlq")["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        queue = sqs.create_queue(QueueName="wms-notifications", Attributes={
            "RedrivePolicy": jsonlib.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "5"})})["QueueUrl"]
        set_env(UPLOADS_BUCKET="wms-test-uploads", NOTIFICATIONS_QUEUE_URL=queue)
        yield {"s3": s3, "sqs": sqs, "bucket": "wms-test-uploads", "queue_url": queue, "dlq_url": dlq}


@pytest.fixture
def count_queries(engine):
    """`with count_queries() as counter: ...` then `counter.count` SQL statements."""
    from sqlalchemy import event

    class Counter:
        def __init__(self) -> None:
            self.statements: list[str] = []

        @property
        def count(self) -> int:
            return len([s for s in self.statements if not s.strip().upper().startswith(("SAVEPOINT", "RELEASE", "ROLLBACK TO"))])

    @contextmanager
    def counting():
        counter = Counter()

        def before(conn, cursor, statement, parameters, context, executemany):
            counter.statements.append(statement)

        event.listen(engine, "before_cursor_execute", before)
        try:
            yield counter
        finally:
            event.remove(engine, "before_cursor_execute", before)

    return counting


@pytest.fixture
def driver_statements(monkeypatch):
    """`driver_statements(call)`: (the statements pg8000 executed for `call()`, savepoints left out; its answer).
    `count_queries` counts SQLAlchemy's statements, where an `executemany` is one; pg8000 runs one row by row
    (docs/decisions.md, "Bulk writes"), and here each row of one counts. Skipped on another driver."""
    import pg8000.legacy

    from chalicelib.core.db import get_engine

    if get_engine().dialect.driver != "pg8000":
        pytest.skip("counts pg8000's statements")
    executed = []
    original = pg8000.legacy.Cursor.execute

    def execute(self, operation, args=(), stream=None):
        executed.append(operation)
        return original(self, operation, args, stream)

    monkeypatch.setattr(pg8000.legacy.Cursor, "execute", execute)

    def run(call):
        executed.clear()
        answer = call()
        return [s for s in executed if not s.strip().upper().startswith(("SAVEPOINT", "RELEASE", "ROLLBACK TO"))], answer

    return run


# Tests never reach DNS: host names resolve through this table (a public address by default).
RESOLVES: dict[str, list[str]] = {}


@pytest.fixture(autouse=True)
def _no_dns(monkeypatch):
    from chalicelib.core import netguard

    monkeypatch.setattr(netguard, "resolve_host", lambda host: RESOLVES.get(host, ["93.184.216.34"]))
    yield RESOLVES
    RESOLVES.clear()


@pytest.fixture
def org_clock(monkeypatch):
    """Moves the app's clock for one test: `org_clock("2026-11-25T10:00")` (a wall time in ORG_TIMEZONE, or an
    aware datetime) makes core.timeutil.org_now/org_today/week_bounds and core.ids.utcnow (the columns' defaults
    too) answer that instant, running on from it. For tests whose meaning depends on the day (a weekday, the last
    day of a month, a DST change), so that they mean it on every day CI runs them. time.time() (tokens) is real."""
    from datetime import datetime

    from chalicelib.core import ids, timeutil

    real = datetime
    offset = [None]

    class _Meta(type):
        def __instancecheck__(cls, obj):  # timeutil.iso's isinstance(value, datetime) still sees real datetimes
            return isinstance(obj, real)

    class _Moved(real, metaclass=_Meta):
        @classmethod
        def now(cls, tz=None):
            return real.now(tz) + offset[0]

    def move(when) -> None:
        when = real.fromisoformat(when) if isinstance(when, str) else when
        if when.tzinfo is None:
            when = when.replace(tzinfo=timeutil.org_zone())
        offset[0] = when - real.now(when.tzinfo)
        monkeypatch.setattr(ids, "datetime", _Moved)
        monkeypatch.setattr(timeutil, "datetime", _Moved)

    return move


# ---------------------------------------------------------------- statuses the document lists (session 26)

_UNDECLARED: list[str] = []


def pytest_configure(config):
    """Every response the app answers in a test is checked against the statuses docs/openapi.json lists for its
    route (core.openapi.declared_statuses, the builder's own rule): a status the document leaves out fails the test
    (an audit found about 30 routes answering one: generated clients could not read those answers). A 500 is left to
    the tests that expect none. A test of a deliberately undeclared answer (the core's own test apps) carries the
    `undeclared_status` marker."""
    from chalice import app as chalice_app

    from chalicelib.core.openapi import declared_statuses

    config.addinivalue_line("markers", "undeclared_status: the test's app answers statuses its routes do not list")
    _share_one_cluster(config)
    called = chalice_app.Chalice.__call__
    if getattr(called, "_wms_checked", False):
        return

    def __call__(self, event, context):
        result = called(self, event, context)
        try:
            request = event.get("requestContext") or {}
            path, method = request.get("resourcePath"), event.get("httpMethod") or request.get("httpMethod")
            entry = self.routes.get(path, {}).get(method) if path else None
            spec = getattr(entry.view_function, "__wms_endpoint__", None) if entry is not None else None
            status = result.get("statusCode") if isinstance(result, dict) else None
        except AttributeError:  # not an API Gateway event (a scheduled or queue function's)
            return result
        if spec is not None and status not in (None, 500) and status not in declared_statuses(method, path, spec):
            _UNDECLARED.append(f"{method} {path} answered {status}, its document lists "
                               f"{sorted(declared_statuses(method, path, spec))}")
        return result

    __call__._wms_checked = True
    chalice_app.Chalice.__call__ = __call__


def _share_one_cluster(config) -> None:
    """Under pytest-xdist (`make test` runs `-n auto`), the controlling process starts the one throwaway cluster its
    workers share, each worker still creating and dropping a database of its own (`database_url`), rather than a
    cluster a worker. Nothing to do with TEST_DATABASE_URL set, on SQLite, in a worker, or without -n."""
    if os.environ.get("WMS_TEST_DB") == "sqlite" or os.environ.get("TEST_DATABASE_URL"):
        return
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    from tests.pgserver import Cluster

    try:
        cluster = Cluster()
    except RuntimeError:  # no server binaries: each worker's `database_url` stops the run and names the package
        return
    os.environ["TEST_DATABASE_URL"] = cluster.start()

    def stop() -> None:
        os.environ.pop("TEST_DATABASE_URL", None)
        cluster.stop()

    config.add_cleanup(stop)


@pytest.fixture(autouse=True)
def _statuses_declared(request):
    _UNDECLARED.clear()
    yield
    found = list(dict.fromkeys(_UNDECLARED))
    _UNDECLARED.clear()
    if found and request.node.get_closest_marker("undeclared_status") is None:
        pytest.fail("a route answered a status its document does not list: " + "; ".join(found), pytrace=False)
