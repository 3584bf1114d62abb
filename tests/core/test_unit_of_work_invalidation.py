"""A statement that fails inside the driver (not a server error SQLAlchemy knows) must not send its
connection back to the pool out of step with the server (issue 20 item 1a)."""
import pytest
from sqlalchemy import text

from chalicelib.core import db as core_db


@pytest.fixture
def pooled_engine(database_url, monkeypatch):
    if database_url.startswith("sqlite"):
        pytest.skip("the pooled-connection case is PostgreSQL's (SQLite has no server to fall out of step with)")
    engine = core_db.make_engine(database_url)
    core_db.override_bind(None)
    monkeypatch.setattr(core_db, "_engine", engine)
    yield engine
    engine.dispose()


def _dbapi_connection(uow):
    return uow.session.connection().connection.dbapi_connection


def test_a_failed_statement_invalidates_its_connection(pooled_engine):
    uow = core_db.UnitOfWork()
    first = _dbapi_connection(uow)
    with pytest.raises(Exception):  # pg8000 fails encoding the parameter, after part of the message went out
        uow.session.execute(text("SELECT :value"), {"value": "lone \udfff surrogate"})
    uow.rollback(invalidate=True)
    uow.close()
    after = core_db.UnitOfWork()
    try:
        assert _dbapi_connection(after) is not first
        assert after.session.execute(text("SELECT 1")).scalar() == 1
    finally:
        after.close()


def test_a_plain_rollback_keeps_the_connection_pooled(pooled_engine):
    uow = core_db.UnitOfWork()
    first = _dbapi_connection(uow)
    uow.rollback()
    uow.close()
    again = core_db.UnitOfWork()
    try:
        assert _dbapi_connection(again) is first
    finally:
        again.close()


def test_a_job_unit_of_work_that_fails_mid_statement_does_not_poison_the_pool(pooled_engine):
    """Scheduled and queue functions use `unit_of_work()`: the same rule as requests."""
    with pytest.raises(Exception):
        with core_db.unit_of_work() as uow:
            first = _dbapi_connection(uow)
            uow.session.execute(text("SELECT :value"), {"value": "lone \udfff surrogate"})
    for _ in range(10):
        with core_db.unit_of_work() as uow:
            assert _dbapi_connection(uow) is not first
            assert uow.session.execute(text("SELECT 1")).scalar() == 1
