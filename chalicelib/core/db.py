"""Engine (created lazily, once per container), session factory and the unit of work. How the pg8000 driver
runs on Postgres (pipelining, prepared statements, fast readers) is core/pg8000_driver.py.

Only core talks to the engine. Areas receive a session through the request context (`ctx.db`)
or through `unit_of_work()` in jobs. Services flush, never commit: the unit of work commits once,
and rolls back on any exception.
"""

import json
import logging
import re
import ssl
import time
from contextlib import contextmanager
from datetime import date, datetime, timezone
from typing import Any, Iterator

import orjson
from sqlalchemy import JSON, Boolean, Date, DateTime, ForeignKey, MetaData, String, create_engine, event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from sqlalchemy.types import TypeDecorator

from .ids import new_id, utcnow
from .settings import get_settings
from .timeutil import no_deadline

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator):
    """Timezone-aware UTC timestamps on every backend (SQLite stores them naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        if value is not None and dialect.name == "sqlite":
            value = value.astimezone(timezone.utc).replace(tzinfo=None)
        return value

    def process_result_value(self, value, dialect):
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {datetime: UTCDateTime(), dict: JSON, list: JSON, bool: Boolean, date: Date}


def id_column() -> Mapped[str]:
    return mapped_column(String(36), primary_key=True, default=new_id)


def cross_area_key(target: str, **options) -> ForeignKey:
    """A foreign key to another area's table (`cross_area_key("companies.id", ondelete="CASCADE")`).

    A flush sorts the flushed table's foreign keys and so resolves each one's target table; a Lambda function
    has only its own area's models and the core's loaded, so a plain ForeignKey to another area's table fails
    there with NoReferencedTableError (a 500 on the write) unless some earlier call happened to load that area.
    `use_alter=True` keeps the key out of that sort (it orders only the tables of one mapper) while the model
    still declares it, for the schema drift test; the migrations create it in the database as before."""
    return ForeignKey(target, use_alter=True, **options)


def insert_stamp(context) -> datetime:
    """The insert default of `created_at` and `updated_at`: one instant per inserted row, so that a new row's two
    stamps are equal (each calling `utcnow` stored an `updated_at` microseconds before its `created_at`, and a
    client comparing them read every new record as edited). The rows of one executemany each get their own, as
    before. A row given an explicit `created_at` keeps it."""
    row = id(getattr(context, "current_parameters", context))  # this row's parameters, alive for the statement
    held = getattr(context, "_wms_insert_stamp", None)
    if held is None or held[0] != row:
        held = (row, utcnow())
        try:
            context._wms_insert_stamp = held
        except AttributeError:  # a context that keeps no attributes (a plain dict): this column's own instant
            pass
    return held[1]


def created_at_column() -> Mapped[datetime]:
    return mapped_column(UTCDateTime(), default=insert_stamp, nullable=False)


def updated_at_column() -> Mapped[datetime]:
    return mapped_column(UTCDateTime(), default=insert_stamp, onupdate=utcnow, nullable=False)


class Created:
    """Mixin: `created_at`, set on insert (placed after the model's own columns)."""

    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=insert_stamp, nullable=False)


class Timestamps(Created):
    """Mixin: `created_at` and `updated_at` (refreshed on every update)."""

    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=insert_stamp, onupdate=utcnow, nullable=False)


_engine: Engine | None = None
_bind_override: Connection | None = None


def _ssl_context(settings) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=settings.database_ca_file)
    return context


def make_engine(url: str | None = None) -> Engine:
    settings = get_settings()
    url = url or settings.database_url
    # a database error's message (logged with its traceback) names the statement, never its values: salaries,
    # notes, encrypted credentials and password hashes travel as parameters, and pg8000's are unnamed, so the
    # log redaction cannot tell them (a server message may still quote a value it refused, as Postgres words it)
    kwargs: dict[str, Any] = {"future": True, "hide_parameters": True}
    connect_args: dict[str, Any] = {}
    if url.startswith("sqlite"):
        connect_args["check_same_thread"] = False
    else:
        # Lambda: one container serves one request at a time; RDS Proxy pools for us.
        kwargs.update(pool_size=2, max_overflow=2, pool_recycle=300)
        if settings.database_ssl == "verify" and "pg8000" in url:
            connect_args["ssl_context"] = _ssl_context(settings)
    engine = create_engine(url, connect_args=connect_args, **kwargs)
    _ping_when_idle(engine)
    if url.startswith("sqlite"):
        _sqlite_transactions(engine)
    elif engine.dialect.driver == "pg8000":
        from .pg8000_driver import install

        install(engine)
    return engine


# A connection back from the pool within this many seconds of its last use is not pinged: a Lambda
# container serves requests back to back on one connection, and `pool_pre_ping` paid a round trip on
# every request for the rare connection that died in between (issue 11 item 6). One idle for longer
# (the database or RDS Proxy may have closed it) is pinged first and replaced when the ping fails.
PING_AFTER_IDLE_SECONDS = 30.0


def _ping_when_idle(engine: Engine) -> None:
    from sqlalchemy import exc

    @event.listens_for(engine, "connect")
    def _on_connect(_dbapi_connection, record):
        record.info["wms_last_used"] = time.monotonic()

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection, record):
        if record is not None:
            record.info["wms_last_used"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection, record, _proxy):
        last_used = record.info.get("wms_last_used")
        if last_used is not None and time.monotonic() - last_used < PING_AFTER_IDLE_SECONDS:
            return
        try:
            cursor = dbapi_connection.cursor()
            cursor.execute("SELECT 1")
            cursor.close()
            dbapi_connection.rollback()
        except Exception as error:  # noqa: BLE001 - any failure means the connection is gone
            # the pool discards this connection and checks out a fresh one (SQLAlchemy's documented
            # pessimistic disconnect handling)
            raise exc.DisconnectionError(f"stale pooled connection: {type(error).__name__}") from error
        record.info["wms_last_used"] = time.monotonic()


# orjson reads an integer outside [-2**63, 2**64 - 1] as a float, whose magnitude is then at least 2**63: only a
# value holding such a float (and whose text has a run of 19 digits) is read again by json.loads. An ordinary
# float (hours, amounts) does not send its value to the digit scan, which cost more than orjson's read.
_BIG = 9.2e18
_long_number = re.compile(r"[0-9]{19}").search


def _has_big_float(value) -> bool:
    for item in (value.values() if type(value) is dict else value):
        kind = type(item)
        if (kind is float and (item >= _BIG or item <= -_BIG)) or (
                (kind is dict or kind is list) and _has_big_float(item)):
            return True
    return False


def json_value(data: str, check: bool = True):
    """The value of a JSON text as `json.loads` reads it, read by orjson (about four times faster). What orjson
    refuses (NaN, lone surrogates) goes to json.loads, and so does, with `check`, a value where orjson read an
    integer beyond 64 bits as a float. `check=False` for a text whose every number is known to fit (the
    records of core.query, whose columns have no JSON type: their numbers are 64-bit integers or become
    floats in the answer anyway)."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)
    if check and _has_big_float((value,)) and _long_number(data):
        return json.loads(data)
    return value


# The execution options of a write whose answer nobody reads (`db.execute(stmt, params,
# execution_options=WRITE_LATER)`): on pg8000 it leaves with the request's next statement
# (core.pg8000_driver.pipeline_pg8000).
WRITE_LATER = {"wms_later": True}


def writes_later(context) -> bool:
    """Whether nobody reads a statement's answer: run with WRITE_LATER's option `wms_later`, or an INSERT without
    RETURNING into a table whose `info` holds `write_later` (the history entries)."""
    if context.execution_options.get("wms_later"):
        return True
    compiled = context.compiled
    if not context.isinsert or compiled is None or compiled.effective_returning:
        return False
    table = getattr(compiled.statement, "table", None)
    return table is not None and bool(table.info.get("write_later"))


def _sqlite_transactions(engine: Engine) -> None:
    """pysqlite's own transaction handling breaks SAVEPOINT; let SQLAlchemy emit BEGIN itself."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        conn.exec_driver_sql("BEGIN")


def get_engine() -> Engine:
    global _engine
    if _engine is None:
        _engine = make_engine()
    return _engine


def reset_engine() -> None:
    global _engine
    if _engine is not None:
        _engine.dispose()
    _engine = None


def override_bind(connection: Connection | None) -> None:
    """Tests: run every unit of work inside `connection`'s outer transaction (savepoints)."""
    global _bind_override
    _bind_override = connection


def new_session() -> Session:
    if _bind_override is not None:
        return Session(bind=_bind_override, join_transaction_mode="create_savepoint", expire_on_commit=False)
    return Session(bind=get_engine(), expire_on_commit=False)


class UnitOfWork:
    """One session, one transaction; callbacks queued with `after_commit` run only on success."""

    def __init__(self) -> None:
        self.session = new_session()
        self._after_commit: list = []

    def after_commit(self, callback) -> None:
        self._after_commit.append(callback)

    def commit(self) -> None:
        self.session.commit()
        callbacks, self._after_commit = self._after_commit, []
        for callback in callbacks:
            try:
                with no_deadline():  # work after the commit is not the request's: no deadline (timeutil)
                    callback()
            except Exception:  # noqa: BLE001 - the data is committed; a failed send is logged, not a 500
                logging.getLogger("wms.db").exception("after-commit callback failed")

    def release(self) -> None:
        """End the (read-only so far) transaction and give the connection back before a slow call to a
        provider; the next statement opens a new transaction, committed by the unit of work as usual.
        Refuses when the session holds unsaved changes: writes belong after the call."""
        session = self.session
        if session.new or session.dirty or session.deleted:
            raise RuntimeError("release() with unsaved changes: do the provider call before writing")
        session.commit()

    def rollback(self, *, invalidate: bool = False) -> None:
        """`invalidate`: the failure may have left the connection out of step with the server (an
        exception raised while a statement was being sent, such as a driver failing to encode a
        value): close it for good instead of returning it to the pool."""
        self._after_commit = []
        if invalidate and _bind_override is None:
            self.session.invalidate()
            return
        self.session.rollback()

    def close(self) -> None:
        self.session.close()


@contextmanager
def unit_of_work() -> Iterator[UnitOfWork]:
    uow = UnitOfWork()
    try:
        yield uow
        uow.commit()
    except BaseException as exc:
        from .errors import DomainError

        # as in the endpoint decorator: an unexpected failure may have left the connection out of
        # step with the server (a driver failing mid-statement), so it never goes back to the pool
        uow.rollback(invalidate=not isinstance(exc, DomainError))
        raise
    finally:
        uow.close()
