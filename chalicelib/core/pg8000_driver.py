"""The pg8000 driver as the app runs it on Postgres (issue 11 items 1 and 6): one round trip per statement
(`pipeline_pg8000`), statements prepared on a connection after their second run, placeholders rewritten once
per text, timestamps and JSON read by faster readers, and writes nobody reads sent with the next statement.
`install(engine)` sets it all up on a pg8000 engine (core.db.make_engine); the engine, the session and the unit
of work stay in core.db.
"""
import os
import re
import socket
from datetime import date, datetime
from functools import lru_cache

from sqlalchemy import event
from sqlalchemy.engine import Engine

from .db import json_value, writes_later


def install(engine: Engine) -> None:
    """Everything below, on a new pg8000 engine."""
    _pg8000_fast_timestamps(engine)
    _pg8000_cached_placeholders()
    _pg8000_write_later(engine)


def _pg8000_cached_placeholders() -> None:
    """pg8000 rewrites `%s` placeholders to `$n` by scanning every statement character by character on
    every execute (half a millisecond for a long list query: a tenth of a request). The rewrite of the
    `format` paramstyle (the one SQLAlchemy's dialect uses) depends on the statement's text alone, and
    SQLAlchemy's compiled cache hands the same texts back request after request, so the rewritten text is
    remembered (bounded). Other paramstyles keep pg8000's own function. Installed once per process."""
    from pg8000 import dbapi, legacy

    original = dbapi.convert_paramstyle
    if getattr(legacy.convert_paramstyle, "wms_cached", False):
        return

    @lru_cache(maxsize=2048)
    def rewritten(query: str) -> str:
        return original("format", query, ())[0]

    def convert_paramstyle(style, query, args):
        if style == "format":
            return rewritten(query), args
        return original(style, query, args)

    convert_paramstyle.wms_cached = True
    convert_paramstyle.original = original
    legacy.convert_paramstyle = convert_paramstyle
    dbapi.convert_paramstyle = convert_paramstyle


def _pg8000_fast_timestamps(engine: Engine) -> None:
    """pg8000 reads timestamps and dates with `strptime` (a few microseconds each: a 100-row list holds
    hundreds); `fromisoformat` reads Postgres's text form ten times faster. Anything it cannot read
    (infinity, years beyond 9999) goes to pg8000's own converter, as before (issue 11 item 6). JSON values
    are read by orjson, likewise with pg8000's own reader behind it."""
    from pg8000 import converters

    def reader(fast, fallback):
        def read(data):
            try:
                return fast(data)
            except ValueError:
                return fallback(data)
        return read

    readers = {1184: reader(datetime.fromisoformat, converters.timestamptz_in),  # timestamptz
               1114: reader(datetime.fromisoformat, converters.timestamp_in),  # timestamp
               1082: reader(date.fromisoformat, converters.date_in),  # date
               # json and jsonb: orjson, with json.loads behind it (json_value)
               114: json_value,
               3802: json_value}

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        for oid, read in readers.items():
            dbapi_connection.register_in_adapter(oid, read)
        pipeline_pg8000(dbapi_connection)


PREPARE_AFTER = 2  # a statement's executions on one connection before it is prepared (named) there
PREPARED_MAX = 200  # named statements kept on one connection; the least recently used is closed beyond
_PREPARABLE = ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH")
# what makes a SELECT take something that lasts until the transaction ends (a row lock, an advisory lock) or
# change a setting: such a statement opens the transaction like a write
_HOLDS = re.compile(r"\bFOR\s+(NO\s+KEY\s+UPDATE|UPDATE|SHARE|KEY\s+SHARE)\b|_XACT_LOCK|SET_CONFIG").search
_BEGIN = "begin transaction"  # what pg8000 sends before a statement outside a transaction


@lru_cache(maxsize=4096)
def opens_transaction(statement: str) -> bool:
    """Whether `statement` must run inside the request's transaction: everything but a plain SELECT (one that
    takes no lock and sets nothing). Under READ COMMITTED, Postgres's default and ours, each statement of a
    transaction reads its own snapshot, so a SELECT outside it reads what it would read inside."""
    if statement.lstrip()[:6].upper() != "SELECT":
        return True
    return _HOLDS(statement.upper()) is not None


class _PipelineState:
    """What the engine tells a pipelined pg8000 connection of the statement it is about to run."""

    __slots__ = ("later",)

    def __init__(self) -> None:
        self.later = False  # its answer is read by nobody: it may wait in the send buffer for the next batch


def _pg8000_write_later(engine: Engine) -> None:
    """Tell the connection (pipeline_pg8000) which statements may wait for the next batch, for the one
    `cursor.execute` that runs them."""

    @event.listens_for(engine, "do_execute")
    def _do_execute(cursor, statement, parameters, context):
        if context is None or not writes_later(context):
            return False
        state = getattr(cursor._c, "wms_pipeline", None)
        if state is None:
            return False
        state.later = True
        try:
            cursor.execute(statement, parameters)
        finally:
            state.later = False
        return True


def pipeline_pg8000(dbapi_connection, lazy_begin: bool = True) -> None:
    """One round trip per statement on a pg8000 connection instead of three, and no parse or plan again for a
    statement the connection has run before (issue 11 items 1 and 6).

    pg8000 runs a parameterised statement as Parse+Sync (wait), Describe+Sync (wait), Bind+Execute+Sync
    (wait). The extended query protocol allows the whole sequence in one message batch (what libpq and
    psycopg send): Parse, Bind, Describe portal, Execute, Sync, then read until ReadyForQuery. pg8000's
    own message handlers read the answers unchanged (RowDescription or NoData, DataRows,
    CommandComplete; an ErrorResponse makes the server skip to the Sync and pg8000 raises it as
    before). The parameters are encoded before anything is written, so an unencodable value fails
    without leaving half a batch on the wire. COPY (a `stream`) keeps pg8000's own path.

    pg8000 sends every statement unnamed, so Postgres parses and plans it on every request (a detail's
    lookups in one statement cost more to plan than to run). As psycopg does (its prepare_threshold), a
    statement text that this connection runs for the PREPARE_AFTER-th time is sent as a named statement in
    the same one batch (Parse named, Describe, Bind, Execute, Sync), and later runs send only Bind, Execute
    and Sync: Postgres reuses the parse, and its plan once a generic plan costs no more than the custom
    ones. Named statements outlive transactions and rollbacks; at most PREPARED_MAX per connection, the
    least recently used closed. A statement whose cached plan no longer fits the schema (a migration under
    a live connection) is dropped from the cache when Postgres says so, and parsed again next time.

    The transaction opens with the first statement that needs it (`opens_transaction`: a write, a lock), its
    BEGIN sent in the same batch as that statement: pg8000 sends BEGIN as a round trip of its own before a
    request's first statement, and COMMIT as another at its end, which a request that only reads (a GET) no
    longer pays. The SELECTs before the first write run each on its own, which under READ COMMITTED reads
    what they read inside the transaction (each statement there reads its own snapshot too); every write and
    every lock of a request is still in one transaction, committed or rolled back once. A COMMIT or ROLLBACK
    with no transaction open is not sent. `lazy_begin=False`: BEGIN before every first statement, as pg8000
    sends it (the benchmark's primary-key floor).

    A write whose answer nobody reads (`writes_later`: an INSERT without RETURNING into a table marked
    `write_later`, or a statement run with the execution option `wms_later`) is left in the send buffer, with
    its BEGIN when it is the write that opens the transaction: it leaves with the next statement's batch (or
    the COMMIT's), and its answer is read before that statement's, as libpq's pipeline mode does. The history
    entries and the notifications a request writes ride with its next statement instead of costing a round trip
    each. Every answer is read in order up
    to its ReadyForQuery, so the connection stays in step whatever fails; a failed write raises its own error
    (its SQLSTATE: a 400 or 409 as before) at the statement that carried it, and a COMMIT that carried a failed
    write answers ROLLBACK: nothing of the request is kept, and nothing runs after commit."""
    from collections import OrderedDict

    from pg8000 import core
    from pg8000.exceptions import DatabaseError, InterfaceError

    original = dbapi_connection.execute_unnamed
    original_simple = dbapi_connection.execute_simple
    describe_portal = core.PORTAL + core.NULL_BYTE
    begin_asked = [False]  # pg8000 asked for BEGIN before the statement it is about to send
    prepare = os.environ.get("WMS_PG8000_PREPARE", "1") != "0"  # 0: every statement unnamed, as pg8000 sends
    seen: dict = {}  # statement key -> executions before it is prepared
    prepared: OrderedDict = OrderedDict()  # statement key -> (name, columns, input_funcs)
    unsure: set = set()  # names whose prepare failed: maybe on the server, closed by the next prepare's batch
    pending: list = []  # (context, on_error) of writes left in the send buffer, their answers not read yet
    state = dbapi_connection.wms_pipeline = _PipelineState()

    def flush():
        try:
            core._flush(dbapi_connection._sock)
        except AttributeError as error:
            if dbapi_connection._sock is None:
                raise core.InterfaceError("connection is closed") from error
            raise

    def send_begin(statement):
        """Write the BEGIN pg8000 asked for ahead of `statement` when the statement needs the transaction (not
        sent yet: it leaves with the statement's batch); its context, to read its answer first, or None."""
        asked, begin_asked[0] = begin_asked[0], False
        if not asked or dbapi_connection.autocommit or dbapi_connection._in_transaction \
                or not opens_transaction(statement):
            return None
        dbapi_connection.send_QUERY(_BEGIN)
        return core.Context(_BEGIN)

    def read_in_order(entries, *, quiet=False):
        """Read each entry's answers up to its ReadyForQuery (so the connection stays in step), then raise the
        first error; `quiet`: the pending writes' errors are dropped (a ROLLBACK follows them)."""
        first = None
        for context, on_error in entries:
            try:
                dbapi_connection.handle_messages(context)
            except (DatabaseError, InterfaceError) as error:  # raised once the answer is read to its end
                if on_error is not None:
                    on_error(error)
                if first is None:
                    first = error
        if first is not None and not quiet:
            raise first

    def taken():
        entries = list(pending)
        pending.clear()
        return entries

    def read(context, begin, on_error=None):
        """Send the batch and read its answers: the writes left for it first, then BEGIN's, the statement's.
        Before a ROLLBACK the pending writes' errors are of no account."""
        flush()
        entries = taken()
        if entries and context.statement == "rollback":
            read_in_order(entries, quiet=True)
            entries = []
        if begin is not None:
            entries.append((begin, None))
        read_in_order([*entries, (context, on_error)])

    def drain():
        """Read the pending writes' answers before pg8000's own I/O (which reads only its own)."""
        if pending:
            flush()
            read_in_order(taken())

    def deferrable(statement) -> bool:
        """The statement may be left in the buffer: asked for (`state.later`), inside the transaction or opening
        it (its BEGIN then waits with it), and a write that answers no rows (an INSERT, or a WITH of writes,
        without RETURNING)."""
        if not state.later or dbapi_connection.autocommit:
            return False
        if not dbapi_connection._in_transaction and not (begin_asked[0] and opens_transaction(statement)):
            return False
        upper = statement.lstrip().upper()
        return upper.startswith(("INSERT", "WITH")) and "RETURNING" not in upper

    def wait(context, begin, on_error=None):
        """Leave a write's answer (and its BEGIN's, when it opens the transaction) for the next batch. A BEGIN
        left so marks the transaction open, as its ReadyForQuery will: pg8000 then asks for no second BEGIN,
        and its commit() and rollback() send theirs, which read the pending answers first."""
        if begin is not None:
            pending.append((begin, None))
            dbapi_connection._transaction_status = core.IN_TRANSACTION
        pending.append((context, on_error))

    def execute_simple(statement):
        if lazy_begin and statement == _BEGIN and not dbapi_connection.autocommit:
            begin_asked[0] = True  # sent with the statement that follows, if that one needs it
            return core.Context(statement)
        begin = send_begin(statement)
        if begin is None and not pending:
            return original_simple(statement)
        carried = bool(pending)
        context = core.Context(statement)
        dbapi_connection.send_QUERY(statement)
        try:
            read(context, begin)
        except (DatabaseError, InterfaceError):
            if carried and statement.upper().startswith("RELEASE SAVEPOINT"):
                # a write made inside the savepoint failed as it rode with the RELEASE: roll back to the savepoint,
                # as SQLAlchemy does when a statement fails inside it (it sends nothing after a failed RELEASE),
                # so the failure stays contained as it was when the write was read at once
                original_simple("ROLLBACK TO SAVEPOINT " + statement.split()[-1])
            raise
        return context

    def run_named(key, entry, statement, params, begin, later):
        name, columns, input_funcs = entry
        context = core.Context(columns=columns, input_funcs=input_funcs, statement=statement)
        dbapi_connection.send_BIND(name, params)
        dbapi_connection.send_EXECUTE()
        core._write(dbapi_connection._sock, core.SYNC_MSG)

        def on_error(error):
            code = error.args[0].get("C") if error.args and isinstance(error.args[0], dict) else None
            if code in ("0A000", "26000"):  # cached plan must not change result type; no such statement
                prepared.pop(key, None)
                dbapi_connection._statement_nums.discard(name)

        if later:
            wait(context, begin, on_error)
        else:
            read(context, begin, on_error)
        return context

    def prepare_and_run(key, statement, oids, params):
        if len(prepared) >= PREPARED_MAX:
            _old_key, (old_name, _c, _f) = prepared.popitem(last=False)
            drain()  # pg8000's close reads only its own answer
            dbapi_connection.close_prepared_statement(old_name)
        number = len(dbapi_connection._statement_nums)
        while f"wms_{number}".encode("ascii") + core.NULL_BYTE in dbapi_connection._statement_nums:
            number += 1
        name = f"wms_{number}".encode("ascii") + core.NULL_BYTE
        context = core.Context(statement)
        begin = send_begin(statement)
        closing = list(unsure)
        for old_name in closing:  # closing a name that does not exist is no error
            dbapi_connection._send_message(core.CLOSE, core.STATEMENT + old_name)
        dbapi_connection.send_PARSE(name, statement, oids)
        dbapi_connection.send_DESCRIBE_STATEMENT(name)
        dbapi_connection.send_BIND(name, params)
        dbapi_connection.send_EXECUTE()
        core._write(dbapi_connection._sock, core.SYNC_MSG)

        def on_error(_error):
            # nothing is cached; but the Parse may have succeeded before the Execute failed (a unique violation
            # on the statement's second run), and a named statement outlives a rollback: its name stays taken
            # until a later batch closes it, or the next prepare under that name would fail (42P05)
            dbapi_connection._statement_nums.add(name)
            unsure.add(name)

        read(context, begin, on_error)
        for old_name in closing:
            unsure.discard(old_name)
            dbapi_connection._statement_nums.discard(old_name)
        dbapi_connection._statement_nums.add(name)
        prepared[key] = (name, context.columns, context.input_funcs)
        return context

    def execute_unnamed(statement, vals=(), oids=(), stream=None):
        if statement in ("commit", "rollback"):  # Connection.commit() and .rollback()
            begin_asked[0] = False
            if not dbapi_connection._in_transaction:  # no statement needed the transaction: nothing to end
                return core.Context(statement)
        if stream is not None:
            drain()
            if send_begin(statement) is not None:  # COPY keeps pg8000's own path: BEGIN goes first, alone
                flush()
                dbapi_connection.handle_messages(core.Context(_BEGIN))
            return original(statement, vals=vals, oids=oids, stream=stream)
        later = deferrable(statement)
        params = core.make_params(dbapi_connection.py_types, vals)
        key = (statement, tuple(oids or ()))
        entry = prepared.get(key)
        if entry is not None:
            prepared.move_to_end(key)
            return run_named(key, entry, statement, params, send_begin(statement), later)
        if prepare and statement.lstrip()[:6].upper().startswith(_PREPARABLE):
            count = seen.get(key, 0) + 1
            if count >= PREPARE_AFTER:  # the preparing run reads its answer (the statement's columns)
                seen.pop(key, None)
                return prepare_and_run(key, statement, oids, params)
            if len(seen) > 10 * PREPARED_MAX:  # statements seen once (ad hoc texts) do not pile up
                seen.clear()
            seen[key] = count
        context = core.Context(statement)
        begin = send_begin(statement)
        dbapi_connection.send_PARSE(core.NULL_BYTE, statement, oids)
        dbapi_connection.send_BIND(core.NULL_BYTE, params)
        dbapi_connection._send_message(core.DESCRIBE, describe_portal)
        dbapi_connection.send_EXECUTE()
        core._write(dbapi_connection._sock, core.SYNC_MSG)
        if later:
            wait(context, begin)
        else:
            read(context, begin)
        return context

    dbapi_connection.execute_unnamed = execute_unnamed
    dbapi_connection.execute_simple = execute_simple
    # A batch larger than the socket's buffer leaves in several segments; without TCP_NODELAY the last,
    # small one waits for the server's delayed ACK (40 ms on Linux), as libpq avoids by setting it too.
    raw_socket = getattr(dbapi_connection, "_usock", None)
    if raw_socket is not None and raw_socket.family in (socket.AF_INET, socket.AF_INET6):
        raw_socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
