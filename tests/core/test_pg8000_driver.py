"""The pg8000 connection as core/db.py configures it (issue 11 item 6): one round trip per statement
(Parse, Bind, Describe, Execute, Sync sent together), placeholder rewriting remembered, a pooled connection
pinged only after it sat idle. Each behaviour is checked for what it must keep: results, errors and a
connection that stays usable after an error."""
from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import create_engine, exc, text

from bench.pgproxy import CountingProxy
from chalicelib.core import db as core_db
from chalicelib.core import pg8000_driver


@pytest.fixture
def pg8000_url(database_url):
    if "pg8000" not in database_url:
        pytest.skip("the pg8000 configuration is about pg8000")
    return database_url


@pytest.fixture
def proxied(pg8000_url):
    """An engine made by core.db.make_engine whose connections go through a counting proxy."""
    from sqlalchemy.engine import make_url

    url = make_url(pg8000_url)
    proxy = CountingProxy(url.host or "127.0.0.1", url.port or 5432)
    engine = core_db.make_engine(url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False))
    yield engine, proxy
    engine.dispose()
    proxy.close()


def test_a_parameterised_statement_is_one_round_trip(proxied):
    engine, proxy = proxied
    with engine.connect() as conn:
        conn.execute(text("SELECT 1")).all()  # opens the transaction
        before, _ = proxy.snapshot()
        for n in range(5):
            assert conn.execute(text("SELECT CAST(:n AS integer) + 1 AS v"), {"n": n}).scalar_one() == n + 1
        after, _ = proxy.snapshot()
        conn.rollback()
    assert after - before == 5  # pg8000 alone takes three per statement: 15


def test_results_types_and_statements_without_rows(pg8000_url):
    engine = core_db.make_engine(pg8000_url)
    try:
        with engine.connect() as conn:
            conn.execute(text("CREATE TEMPORARY TABLE wms_pipe (id integer PRIMARY KEY, at timestamptz, d date, "
                              "note text)"))
            result = conn.execute(text("INSERT INTO wms_pipe VALUES (:i, :at, :d, :note)"),
                                  {"i": 1, "at": dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc),
                                   "d": dt.date(2026, 2, 3), "note": "it's %s"})
            assert result.rowcount == 1
            row = conn.execute(text("SELECT id, at, d, note FROM wms_pipe WHERE id = :i"), {"i": 1}).one()
            assert row == (1, dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc), dt.date(2026, 2, 3), "it's %s")
            assert conn.execute(text("SELECT id FROM wms_pipe WHERE id = :i"), {"i": 2}).all() == []
            conn.rollback()
    finally:
        engine.dispose()


def test_errors_are_raised_and_the_connection_stays_usable(pg8000_url):
    engine = core_db.make_engine(pg8000_url)
    try:
        with engine.connect() as conn:
            with pytest.raises(exc.ProgrammingError):
                conn.execute(text("SELEC broken :x"), {"x": 1})  # a Parse error: the batch is skipped to Sync
            conn.rollback()
            conn.execute(text("CREATE TEMPORARY TABLE wms_pipe2 (id integer PRIMARY KEY)"))
            conn.execute(text("INSERT INTO wms_pipe2 VALUES (:i)"), {"i": 1})
            with pytest.raises(exc.IntegrityError):
                conn.execute(text("INSERT INTO wms_pipe2 VALUES (:i)"), {"i": 1})  # an Execute error
            conn.rollback()
            assert conn.execute(text("SELECT :a || :b"), {"a": "still ", "b": "fine"}).scalar_one() == "still fine"
    finally:
        engine.dispose()


def test_placeholder_rewriting_is_remembered_and_keeps_pg8000s_rules(pg8000_url):
    core_db.make_engine(pg8000_url).dispose()  # installs the cache
    from pg8000 import dbapi, legacy

    convert = legacy.convert_paramstyle
    assert convert is dbapi.convert_paramstyle and convert.wms_cached
    query = "SELECT '%s' AS literal, %s AS value, 10 %% 3 -- a comment %s\n"
    assert convert("format", query, (1,)) == convert.original("format", query, (1,))
    assert convert("format", query, (2,))[1] == (2,)  # the parameters are the call's, not the cached ones
    assert convert("named", "SELECT :a, :b, :a", {"a": 1, "b": 2}) == ("SELECT $1, $2, $1", (1, 2))


def test_a_connection_idle_past_the_limit_is_pinged_and_a_dead_one_replaced(pg8000_url, monkeypatch):
    engine = core_db.make_engine(pg8000_url)
    try:
        with engine.connect() as conn:
            first_pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
            conn.rollback()
        # the server ends the pooled session while it sits in the pool
        with engine.connect() as other:
            pass
        killer = create_engine(pg8000_url)
        with killer.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": first_pid})
            conn.commit()
        killer.dispose()
        # within the idle limit it would be handed out unpinged; past it the ping finds it dead
        monkeypatch.setattr(core_db, "PING_AFTER_IDLE_SECONDS", -1.0)
        with engine.connect() as conn:
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
        assert pid != first_pid
        del other
    finally:
        engine.dispose()


def test_a_recently_used_connection_is_not_pinged(proxied):
    engine, proxy = proxied
    with engine.connect() as conn:
        conn.execute(text("SELECT 1")).all()
        conn.rollback()
    before, _ = proxy.snapshot()
    with engine.connect() as conn:
        conn.execute(text("SELECT CAST(:n AS integer)"), {"n": 1}).all()
        conn.rollback()
    after, _ = proxy.snapshot()
    # the statement alone: no ping (and, a SELECT opening no transaction, no BEGIN and no ROLLBACK)
    assert after - before == 1


def test_reads_open_no_transaction_and_the_first_write_sends_begin_with_it(proxied, pg8000_url):
    """A unit of work that only reads pays no BEGIN and no COMMIT; the first write opens the transaction in its
    own batch (one round trip for BEGIN and the statement), and the writes commit or roll back together."""
    from sqlalchemy.orm import Session

    engine, proxy = proxied
    with engine.connect() as conn:
        conn.execute(text("CREATE TABLE wms_lazy_begin (id integer PRIMARY KEY)"))
        conn.commit()
    try:
        with Session(engine) as session:
            session.execute(text("SELECT 1")).all()
            before, _ = proxy.snapshot()
            for n in range(3):
                session.execute(text("SELECT CAST(:n AS integer)"), {"n": n}).all()
            session.commit()
            after, _ = proxy.snapshot()
        assert after - before == 3  # three statements, no COMMIT
        with Session(engine) as session:
            before, _ = proxy.snapshot()
            session.execute(text("SELECT CAST(:n AS integer)"), {"n": 1}).all()
            session.execute(text("INSERT INTO wms_lazy_begin VALUES (:n)"), {"n": 1})
            assert session.execute(text("SELECT count(*) FROM wms_lazy_begin")).scalar_one() == 1  # its own write
            with pytest.raises(exc.IntegrityError):
                session.execute(text("INSERT INTO wms_lazy_begin VALUES (:n)"), {"n": 1})
            session.rollback()
            after, _ = proxy.snapshot()
        assert after - before == 5  # select, BEGIN + insert, count, failed insert, rollback
        with Session(engine) as session:
            session.execute(text("INSERT INTO wms_lazy_begin VALUES (:n)"), {"n": 2})
            session.execute(text("INSERT INTO wms_lazy_begin VALUES (:n)"), {"n": 3})
            session.commit()
        with engine.connect() as conn:  # the first unit rolled back whole, the second committed whole
            assert conn.execute(text("SELECT id FROM wms_lazy_begin ORDER BY id")).scalars().all() == [2, 3]
    finally:
        with engine.connect() as conn:
            conn.execute(text("DROP TABLE wms_lazy_begin"))
            conn.commit()


def test_a_select_that_locks_opens_the_transaction(pg8000_url):
    """An advisory transaction lock or a row lock taken by a SELECT lasts until the unit of work ends: such a
    SELECT opens the transaction like a write."""
    from sqlalchemy.orm import Session

    engine, other = core_db.make_engine(pg8000_url), create_engine(pg8000_url)
    try:
        with Session(engine) as session, other.connect() as probe:
            session.execute(text("SELECT CAST(:n AS integer)"), {"n": 1}).all()
            session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": 424242}).all()
            held = text("SELECT pg_try_advisory_xact_lock(:k)")
            assert probe.execute(held, {"k": 424242}).scalar_one() is False
            probe.rollback()
            session.commit()
            assert probe.execute(held, {"k": 424242}).scalar_one() is True
            probe.rollback()
            pid = session.execute(text("SELECT pg_backend_pid()")).scalar_one()
            session.execute(text("SELECT datname FROM pg_database WHERE datname = current_database() FOR UPDATE")
                            ).all()
            state = text("SELECT state FROM pg_stat_activity WHERE pid = :pid")
            assert probe.execute(state, {"pid": pid}).scalar_one() == "idle in transaction"
            probe.rollback()
            session.rollback()
            assert probe.execute(state, {"pid": pid}).scalar_one() == "idle"
    finally:
        engine.dispose()
        other.dispose()


@pytest.mark.parametrize("statement, opens", [
    ("SELECT id FROM tasks WHERE id = %s", False),
    ("  select 1", False),
    ("SELECT id FROM tasks WHERE id = %s FOR UPDATE", True),
    ("SELECT id FROM tasks FOR NO KEY UPDATE", True),
    ("SELECT id FROM tasks FOR SHARE", True),
    ("SELECT id FROM tasks WHERE id = %s\nfor  key share", True),
    ("SELECT id, for_update FROM tasks", False),
    ("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", True),
    ("SELECT set_config('x.y', '1', true)", True),
    ("INSERT INTO tasks (id) VALUES (%s)", True),
    ("WITH moved AS (DELETE FROM t RETURNING *) SELECT * FROM moved", True),
    ("SAVEPOINT sa_savepoint_1", True),
])
def test_which_statements_open_the_transaction(statement, opens):
    assert pg8000_driver.opens_transaction(statement) is opens


def _prepared_names(conn) -> set[str]:
    return {name for (name,) in conn.execute(text("SELECT name FROM pg_prepared_statements")).all()}


def test_a_repeated_statement_is_prepared_once_and_keeps_its_answers(proxied):
    """From its PREPARE_AFTER-th run a statement goes as a named statement (Bind, Execute, Sync: still one
    round trip), parsed once on the connection; its answers, rows and errors are those of the unnamed path."""
    engine, proxy = proxied
    with engine.connect() as conn:
        conn.execute(text("CREATE TEMPORARY TABLE wms_named (id integer PRIMARY KEY, note text)"))
        insert = text("INSERT INTO wms_named VALUES (:i, :note)")
        select_one = text("SELECT id, note FROM wms_named WHERE id = :i")
        before, _ = proxy.snapshot()
        for n in range(6):
            assert conn.execute(insert, {"i": n, "note": f"n{n}"}).rowcount == 1
            assert conn.execute(select_one, {"i": n}).one() == (n, f"n{n}")
        after, _ = proxy.snapshot()
        assert after - before == 12  # one round trip each, the preparing runs included
        assert len({n for n in _prepared_names(conn) if n.startswith("wms_")}) == 2
        assert conn.execute(select_one, {"i": 99}).all() == []
        with pytest.raises(exc.IntegrityError):  # an error on a named statement
            conn.execute(insert, {"i": 1, "note": "again"})
        conn.rollback()
        conn.execute(text("CREATE TEMPORARY TABLE wms_named (id integer PRIMARY KEY, note text)"))
        assert conn.execute(insert, {"i": 1, "note": "after rollback"}).rowcount == 1  # named statements outlive it
        assert conn.execute(select_one, {"i": 1}).one() == (1, "after rollback")
        conn.rollback()


def test_a_statement_whose_preparing_run_fails_prepares_again_later(pg8000_url):
    """The run that prepares a statement (its PREPARE_AFTER-th) can fail after Postgres parsed it under its name
    (a unique violation: Parse succeeds, Execute fails), and a named statement outlives the rollback. The name
    stays taken and the next prepare's batch closes it: the statement runs and prepares again (before, every
    later preparing run failed with 42P05 "prepared statement already exists", a 500), and no orphan stays."""
    engine = core_db.make_engine(pg8000_url)
    try:
        with engine.connect() as conn:
            conn.execute(text("CREATE TEMPORARY TABLE wms_orphan (id integer PRIMARY KEY) ON COMMIT PRESERVE ROWS"))
            conn.commit()
            insert = text("INSERT INTO wms_orphan VALUES (:i)")
            conn.execute(insert, {"i": 1})  # first run: unnamed
            with pytest.raises(exc.IntegrityError):
                conn.execute(insert, {"i": 1})  # second run: prepared, parsed, then the violation
            conn.rollback()
            for n in range(2, 2 + 2 * pg8000_driver.PREPARE_AFTER):
                conn.execute(insert, {"i": n})
            conn.commit()
            assert conn.execute(text("SELECT count(*) FROM wms_orphan")).scalar_one() == 2 * pg8000_driver.PREPARE_AFTER
            names = _prepared_names(conn)
            assert len([n for n in names if n.startswith("wms_")]) == 1  # the insert's; the orphan closed
            conn.rollback()
    finally:
        engine.dispose()


def test_prepared_statements_are_bounded_and_can_be_turned_off(pg8000_url, monkeypatch):
    monkeypatch.setattr(pg8000_driver, "PREPARED_MAX", 3)
    engine = core_db.make_engine(pg8000_url)
    try:
        with engine.connect() as conn:
            for n in range(6):
                for _ in range(pg8000_driver.PREPARE_AFTER):
                    assert conn.execute(text(f"SELECT CAST(:n AS integer) + {n}"), {"n": 1}).scalar_one() == 1 + n
            assert len({n for n in _prepared_names(conn) if n.startswith("wms_")}) == 3
            conn.rollback()
    finally:
        engine.dispose()
    monkeypatch.setenv("WMS_PG8000_PREPARE", "0")
    engine = core_db.make_engine(pg8000_url)
    try:
        with engine.connect() as conn:
            for _ in range(5):
                conn.execute(text("SELECT CAST(:n AS integer)"), {"n": 1}).scalar_one()
            assert not {n for n in _prepared_names(conn) if n.startswith("wms_")}
            conn.rollback()
    finally:
        engine.dispose()


def test_tcp_connections_send_without_delay(pg8000_url):
    """A batch bigger than the socket buffer leaves in several segments: with Nagle's algorithm on, the last
    one waited for the server's delayed ACK (40 ms a statement with a long id list, measured)."""
    import socket

    engine = core_db.make_engine(pg8000_url)
    try:
        with engine.connect() as conn:
            raw = conn.connection.dbapi_connection._usock
            if raw.family not in (socket.AF_INET, socket.AF_INET6):
                pytest.skip("a Unix socket has no Nagle's algorithm")
            assert raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
            long_value = ",".join(f"id-{n:06d}" for n in range(3000))  # about 30 kB, several segments
            for _ in range(4):
                assert conn.execute(text("SELECT length(:v)"), {"v": long_value}).scalar_one() == len(long_value)
            conn.rollback()
    finally:
        engine.dispose()


# --- writes nobody reads: left in the send buffer for the next statement's batch -------------------------

def _later_table():
    """A table marked `write_later`, as the history entries are (core.models.HistoryEntry)."""
    from sqlalchemy import Column, Integer, MetaData, String, Table

    return Table("wms_later", MetaData(), Column("id", Integer, primary_key=True), Column("note", String(20)),
                 info={"write_later": True})


@pytest.fixture
def later(proxied):
    engine, proxy = proxied
    table = _later_table()
    table.create(engine)
    try:
        yield engine, proxy, table
    finally:
        table.drop(engine)


def _ids(engine, table) -> list[int]:
    with engine.connect() as conn:
        return conn.execute(text(f"SELECT id FROM {table.name} ORDER BY id")).scalars().all()


def test_a_write_nobody_reads_leaves_with_the_next_statement(later):
    """Inside the transaction an INSERT into a `write_later` table costs no round trip of its own: it leaves with
    the next statement (which sees it) or with the COMMIT. History entries and notifications are written so."""
    from sqlalchemy.orm import Session

    engine, proxy, table = later
    with Session(engine) as session:  # the insert's preparing run (its PREPARE_AFTER-th) reads its answer at once
        for n in range(pg8000_driver.PREPARE_AFTER):
            session.execute(table.insert(), {"id": 100 + n, "note": "warm"})
        session.rollback()
    with Session(engine) as session:
        before, _ = proxy.snapshot()
        session.execute(table.insert(), {"id": 1, "note": "opens"})  # BEGIN and the first write wait too
        opened, _ = proxy.snapshot()
        for n in (2, 3):
            session.execute(table.insert(), {"id": n, "note": "later"})
        waiting, _ = proxy.snapshot()
        assert session.execute(text("SELECT count(*) FROM wms_later")).scalar_one() == 3  # carried, then seen
        read, _ = proxy.snapshot()
        session.execute(table.insert(), {"id": 4, "note": "with commit"})
        session.commit()
        after, _ = proxy.snapshot()
    assert (opened - before, waiting - opened, read - waiting, after - read) == (0, 0, 1, 1)
    assert _ids(engine, table) == [1, 2, 3, 4]


def test_a_write_that_opens_the_transaction_waits_with_its_begin(later):
    """The first write of a unit of work leaves its BEGIN in the buffer with it. pg8000 takes the transaction as
    open (it sends no second BEGIN, and its commit and rollback are sent): a COMMIT alone carries the whole unit,
    a ROLLBACK alone drops it, and a failure among them keeps nothing."""
    from sqlalchemy.orm import Session

    engine, proxy, table = later
    with Session(engine) as session:  # past the insert's preparing run, which reads its answer at once
        for n in range(pg8000_driver.PREPARE_AFTER):
            session.execute(table.insert(), {"id": 100 + n, "note": "warm"})
        session.rollback()
    with Session(engine) as session:
        before, _ = proxy.snapshot()
        session.execute(table.insert(), {"id": 1, "note": "opens"})
        session.execute(table.insert(), {"id": 2, "note": "later"})
        assert proxy.snapshot()[0] == before  # BEGIN and both inserts wait
        session.commit()  # one round trip: BEGIN, the inserts, COMMIT
        after, _ = proxy.snapshot()
    assert after - before == 1
    with Session(engine) as session:  # a rollback sends the waiting BEGIN and write, then drops them
        session.execute(table.insert(), {"id": 3, "note": "rolled back"})
        session.rollback()
        # the connection is back in step and idle: the next unit opens its own transaction
        assert session.execute(text("SELECT count(*) FROM wms_later WHERE id = 3")).scalar_one() == 0
        session.execute(table.insert(), {"id": 4, "note": "kept"})
        session.commit()
    with Session(engine) as session:  # the opening write fails: the COMMIT that carried it keeps nothing
        session.execute(table.insert(), {"id": 1, "note": "duplicate"})
        session.execute(table.insert(), {"id": 5, "note": "after it"})
        with pytest.raises(exc.DatabaseError) as raised:
            session.commit()
        assert raised.value.orig.args[0]["C"] == "23505"
        session.rollback()
    with Session(engine) as session:  # or the statement that carried it raises its error
        session.execute(table.insert(), {"id": 1, "note": "duplicate"})
        with pytest.raises(exc.IntegrityError):
            session.execute(text("SELECT count(*) FROM wms_later")).scalar_one()
        session.rollback()
        assert session.execute(text("SELECT count(*) FROM wms_later")).scalar_one() == 3
    assert _ids(engine, table) == [1, 2, 4]
    with engine.connect() as conn:  # the connection never ran a statement inside a stray transaction
        conn.execute(text("SELECT 1")).all()
        assert conn.connection.dbapi_connection._in_transaction is False


def test_only_writes_that_answer_nothing_wait(later):
    """A statement that answers rows (RETURNING, a SELECT) is read at once, even when asked to wait; the
    execution option `wms_later` asks for any statement."""
    from sqlalchemy.orm import Session

    engine, proxy, table = later
    option = core_db.WRITE_LATER
    with Session(engine) as session:
        first = session.execute(text("INSERT INTO wms_later VALUES (:i, 'first') RETURNING id"), {"i": 1},
                                execution_options=option)
        assert first.scalar_one() == 1  # it opened the transaction and answers a row: read at once
        returned = session.execute(table.insert().returning(table.c.id), {"id": 2, "note": "returning"})
        assert returned.scalar_one() == 2
        assert session.execute(text("SELECT CAST(:n AS integer)"), {"n": 7}, execution_options=option).scalar_one() == 7
        before, _ = proxy.snapshot()
        session.execute(text("INSERT INTO wms_later VALUES (:i, 'option')"), {"i": 3}, execution_options=option)
        assert proxy.snapshot()[0] == before  # waiting in the buffer
        session.commit()
    assert _ids(engine, table) == [1, 2, 3]


def test_a_write_left_for_later_that_fails_fails_the_unit_and_the_connection_stays_in_step(later):
    """A failed write raises its own error (its SQLSTATE, so a 409 or 400 as before) at the statement that carried
    it, or at the COMMIT, which then keeps nothing; a ROLLBACK drops it quietly; the connection serves on."""
    from sqlalchemy.orm import Session

    engine, _proxy, table = later
    with Session(engine) as session:
        session.execute(table.insert(), {"id": 1, "note": "kept"})
        session.commit()
    with Session(engine) as session:  # failure carried by the next statement
        session.execute(table.insert(), {"id": 2, "note": "opens"})
        session.execute(table.insert(), {"id": 1, "note": "duplicate"})
        with pytest.raises(exc.IntegrityError) as raised:
            session.execute(text("SELECT count(*) FROM wms_later")).scalar_one()
        assert raised.value.orig.args[0]["C"] == "23505"
        session.rollback()
        assert session.execute(text("SELECT :a || :b"), {"a": "still ", "b": "fine"}).scalar_one() == "still fine"
    with Session(engine) as session:  # failure carried by the COMMIT
        session.execute(table.insert(), {"id": 3, "note": "opens"})
        session.execute(table.insert(), {"id": 1, "note": "duplicate"})
        with pytest.raises(exc.DatabaseError) as raised:  # pg8000 names its class only on a cursor's statement
            session.commit()
        assert raised.value.orig.args[0]["C"] == "23505"  # which the endpoint maps (core.http: 409)
        session.rollback()
    with Session(engine) as session:  # a rollback after a failed write: no error, nothing kept
        session.execute(table.insert(), {"id": 4, "note": "opens"})
        session.execute(table.insert(), {"id": 1, "note": "duplicate"})
        session.rollback()
        with session.begin_nested():  # savepoints carry them too
            session.execute(table.insert(), {"id": 5, "note": "opens"})
            session.execute(table.insert(), {"id": 6, "note": "nested"})
        session.commit()
    with Session(engine) as session:  # a failure that rides with a RELEASE stays inside its savepoint
        session.execute(table.insert(), {"id": 7, "note": "opens"})
        with pytest.raises(exc.DatabaseError) as raised:
            with session.begin_nested():
                session.execute(table.insert(), {"id": 1, "note": "duplicate"})
        assert raised.value.orig.args[0]["C"] == "23505"
        session.execute(table.insert(), {"id": 8, "note": "after"})
        session.commit()
    assert _ids(engine, table) == [1, 5, 6, 7, 8]


def test_writes_left_for_later_are_read_before_pg8000s_own_io(later, monkeypatch):
    """Closing the least recently used prepared statement is pg8000's own round trip, which reads only its own
    answer: the pending writes are read first, in order."""
    from sqlalchemy.orm import Session

    monkeypatch.setattr(pg8000_driver, "PREPARED_MAX", 1)
    engine, _proxy, table = later
    with Session(engine) as session:
        session.execute(table.insert(), {"id": 0, "note": "opens"})
        for n in range(1, 9):
            session.execute(table.insert(), {"id": n, "note": "later"})
            for _ in range(pg8000_driver.PREPARE_AFTER):  # prepares a statement, closing the one before
                assert session.execute(text(f"SELECT CAST(:n AS integer) + {n}"), {"n": 1}).scalar_one() == n + 1
        session.commit()
    assert _ids(engine, table) == list(range(9))


def test_history_entries_ride_with_the_next_statement(proxied):
    """The history a request records costs no round trip of its own (core.models.HistoryEntry: write_later)."""
    from sqlalchemy.orm import Session

    from chalicelib.core import history
    from chalicelib.core.models import HistoryEntry

    assert HistoryEntry.__table__.info["write_later"] is True
    engine, proxy = proxied
    entity = "later-history-test"
    with Session(engine) as session:
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": 5150})  # opens the transaction
        before, _ = proxy.snapshot()
        history.record(session, entity_type="task", entity_id=entity, action="created", actor_id=None)
        session.flush()
        flushed, _ = proxy.snapshot()
        found = session.execute(text("SELECT action FROM history_entries WHERE entity_id = :e"), {"e": entity})
        assert found.scalars().all() == ["created"]
        session.rollback()
    assert (flushed - before, proxy.snapshot()[0] - flushed) == (0, 2)  # the read carried it; the rollback


def test_a_task_create_sends_its_insert_with_the_next_statement(proxied, api, aws):
    """POST /api/tasks through a counting proxy, with the queue configured (the deployment): the task's INSERT
    (core.locks.insert_later), its history entry and the notifications ride with the statements after them.
    Inside the test's outer transaction the unit of work is a savepoint, which costs one round trip (the
    RELEASE carries the last writes, as the COMMIT does in production)."""
    from sqlalchemy.orm import Session

    from chalicelib.areas.tasks.models import Task
    from tests.factories import make_user

    engine, proxy = proxied
    with engine.connect() as conn:
        outer = conn.begin()
        core_db.override_bind(conn)
        try:
            factory = Session(bind=conn, join_transaction_mode="create_savepoint", expire_on_commit=False)
            caller = make_user(factory, access_level="executive", name="Trip Exec")
            assignee = make_user(factory, name="Trip Assignee")
            factory.commit()
            for _ in range(pg8000_driver.PREPARE_AFTER):  # past the statements' preparing runs, read at once
                api.post("/api/tasks", as_=caller, json={"title": "warm", "assignee_id": assignee.id})
            before, _ = proxy.snapshot()
            created = api.post("/api/tasks", as_=caller, json={"title": "Counted", "assignee_id": assignee.id})
            trips = proxy.snapshot()[0] - before
            assert created.status == 201, created
            assert factory.get(Task, created.json["task"]["id"]).title == "Counted"
        finally:
            core_db.override_bind(None)
            outer.rollback()
    # SAVEPOINT; the caller; the assignee; the default status; core notify's claim of its key (carrying the task's
    # INSERT and its history entry; session 23); the notice's read; the answer's names (carrying the notifications'
    # insert); RELEASE. With add and flush the task's INSERT was a round trip of its own.
    assert trips == 8
