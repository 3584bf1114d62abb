"""Row locks and bulk writes: the one place areas get concurrency-safe and round-trip-cheap writes.

- `lock_row(db, Model, id)`: `SELECT ... FOR UPDATE` of one row, re-read from the database (the
  session's copy is refreshed), or None. A state transition locks the row it checks, then checks
  and writes: two concurrent approve/reject calls serialise and the second sees the first's status.
  A whole-set replacement or a new position under a parent locks the parent row first.
- `lock_key(db, *parts)`: a transaction-scoped advisory lock on a key, for a "parent" that is not a
  row (the root pages of one entity). Released at commit or rollback.
- `insert_ignore(db, Model, rows, conflict=(columns))`: `INSERT ... ON CONFLICT DO NOTHING` (one
  statement for any number of rows); answers how many rows were inserted. For idempotent operations
  (watch, add an existing member): a concurrent duplicate is a no-op, never a 409.
- `insert_rows(db, Model, rows)`: one multi-row `INSERT` (not one round trip per row).
- `upsert_rows(db, Model, rows, conflict=...)`: one `INSERT ... ON CONFLICT DO UPDATE`; `set_cells(db, Model, keys,
  wanted, stored)`: a set of rows named by their key columns written as a set (the changed upserted, the removed
  deleted, two statements at most), `forget(db, Model)` after such Core writes.
- `update_rows(db, table, rows)`: rows named by id given each its own values, one `UPDATE ... FROM` on Postgres
  (the rows as one JSON parameter, read as the table's types), not an executemany's row by row.
- `insert_later(db, Model, values)`: one new row whose INSERT nobody waits for (on pg8000 it leaves with the
  request's next statement, core.db), answered as the persistent object `add` and `flush` would give.
- `set_positions(db, Model, column, ids)`: one `UPDATE ... SET column = CASE id WHEN ... END`
  giving each id its index (reorders).
- `claim_row(db, Model, column, *where, stale=...)` and `let_go(obj, column, token)`: the claim idiom of
  docs/area-contract.md (one run of provider calls at a time per record): one conditional UPDATE setting a
  `..._since` column, taken when it is empty or older than `stale`, and the claim cleared with the outcome.

SQLite (the embedded default) takes no row locks: its writers are serialised by the database
lock, so `FOR UPDATE` and advisory locks are left out there; its `ON CONFLICT DO NOTHING` is used.
"""
from __future__ import annotations

from decimal import Decimal
from functools import cache
from typing import Any, Iterable, Sequence

from sqlalchemy import bindparam, case, delete, func, or_, select, text, tuple_, update

from .db import WRITE_LATER
from .errors import BadRequest


def _dialect(db) -> str:
    return db.get_bind().dialect.name


def lock_row(db, model, row_id: str, *, where=None, missing: str | None = None, key_share: bool = False,
             no_key: bool = False):
    """The `model` row with this id, locked until the transaction ends (`SELECT ... FOR UPDATE`), with
    its attributes re-read from the database; None when there is no such row (or `where` excludes it), or, with
    `missing` (what the row is: "Task"), a 404 "<missing> not found": a row deleted by the request this one
    waited for answers as after the delete. `key_share` takes the weakest lock instead (FOR KEY SHARE), for a
    write of another table about to name the row: it waits for the row's delete, not for its edits. `no_key`
    takes FOR NO KEY UPDATE, the lock an UPDATE of the row takes anyway: edits of the row take turns, but a write
    naming it (a foreign key) does not wait for them."""
    stmt = select(model).where(model.id == row_id)
    if where is not None:
        stmt = stmt.where(where)
    stmt = stmt.with_for_update(read=key_share, key_share=key_share or no_key).execution_options(
        populate_existing=True)
    row = db.scalar(stmt)
    if row is None and missing is not None:
        from .errors import not_found

        raise not_found(missing)
    return row


def lock_key(db, *parts: Any) -> None:
    """Hold a transaction-scoped lock on the key `parts` (Postgres advisory lock; nothing on SQLite)."""
    if _dialect(db) != "postgresql":
        return
    key = ":".join("" if part is None else str(part) for part in parts)
    db.execute(select(func.pg_advisory_xact_lock(func.hashtextextended(key, 0))))


def _insert(db, model):
    if _dialect(db) == "postgresql":  # the dialects are imported on first use (cold start)
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(model)


def _rows(rows: dict | Iterable[dict]) -> list[dict]:
    return [rows] if isinstance(rows, dict) else list(rows)


def complete_rows(model, rows: Iterable[dict]) -> list[dict]:
    """The rows as `insert_rows` writes them (Python-side defaults filled in, every row with the same keys),
    for a multi-row INSERT built elsewhere (such as one in a CTE)."""
    return _complete(model, _rows(rows))


class _RowContext:
    """What a column's callable default reads of its execution context here: the row being completed."""

    def __init__(self, row: dict) -> None:
        self.current_parameters = row


def _complete(model, rows: list[dict]) -> list[dict]:
    """Each row with the Python-side defaults of the columns it leaves out (ids, timestamps), and
    every row with the same keys (a multi-row VALUES needs them)."""
    table = model.__table__
    out = []
    for row in rows:
        row = dict(row)
        context = _RowContext(row)  # one per row: the row's created_at and updated_at are one instant
        for column in table.columns:
            if column.key in row:
                continue
            default = column.default
            if default is not None and default.is_callable:
                row[column.key] = default.arg(context)
            elif default is not None and default.is_scalar:
                row[column.key] = default.arg
        out.append(row)
    keys = set().union(*(row.keys() for row in out)) if out else set()
    for row in out:
        for key in keys:
            row.setdefault(key, None)
    return out


def insert_ignore(db, model, rows: dict | Iterable[dict], *, conflict: Sequence[str]) -> int:
    """Insert the rows that do not collide on the unique `conflict` columns; one statement. Answers
    the number of rows inserted (0: every row existed already, or a concurrent request made it)."""
    return len(insert_new(db, model, rows, conflict=conflict))


def insert_new(db, model, rows: dict | Iterable[dict], *, conflict: Sequence[str]) -> set[tuple]:
    """As `insert_ignore`, answering the primary keys (tuples) of the rows it inserted: a row another
    transaction made meanwhile (even one committed while this INSERT waited for it) is left out."""
    values = _complete(model, _rows(rows))
    if not values:
        return set()
    stmt = _insert(db, model).values(values).on_conflict_do_nothing(index_elements=list(conflict))
    return set(db.execute(stmt.returning(*model.__table__.primary_key.columns)).tuples())


def upsert_rows(db, model, rows: dict | Iterable[dict], *, conflict: Sequence[str]) -> None:
    """Insert the rows; of those that collide on the unique `conflict` columns, set the columns the rows give (and
    those with an onupdate: `updated_at`). One INSERT ... ON CONFLICT DO UPDATE whatever their number and whether they
    were stored (session 27: an ORM flush of many rows is an executemany, which pg8000 sends row by row; docs/
    decisions.md, "Bulk writes"); Python-side defaults filled in for the rows inserted; nothing when there is no row.
    The session's copies of `model`'s rows keep what they held: `forget` them when the request reads them again."""
    given = _rows(rows)
    if not given:
        return
    values = _complete(model, given)
    names = {name for row in given for name in row} | {
        column.key for column in model.__table__.columns if column.onupdate is not None}
    stmt = _insert(db, model).values(values)
    db.execute(stmt.on_conflict_do_update(index_elements=list(conflict), set_={
        name: stmt.excluded[name] for name in sorted(names) if name not in conflict}))


def forget(db, model) -> None:
    """Let go of the session's copies of `model`'s rows after a Core write of them (`upsert_rows`, a DELETE): a later
    read in the request answers what was written, not what they held. No statement."""
    for copy in [row for row in db.identity_map.values() if isinstance(row, model)]:
        db.expunge(copy)


def set_cells(db, model, keys: Sequence[str], wanted: dict[tuple, dict | None], stored: dict[tuple, dict]) -> dict:
    """Write `model`'s rows named by their `keys` columns as a set: `wanted` maps a row's key values to the values
    its other columns should hold, or None for no row; `stored` maps those stored now. One DELETE of the rows
    removed and one `upsert_rows` of those set or changed, whatever their number (session 27: an ORM flush of many
    rows is an executemany, which pg8000 runs row by row; docs/decisions.md, "Bulk writes"); a row wanted as stored
    writes nothing. The session's copies of the model's rows are let go when anything was written (`forget`), so
    that a later read answers what was written. Answers the changed entries of `wanted`."""
    changed = {key: values for key, values in wanted.items() if stored.get(key) != values}
    gone = [key for key, values in changed.items() if values is None and key in stored]
    if gone:
        db.execute(delete(model.__table__).where(tuple_(*(model.__table__.c[name] for name in keys)).in_(gone)))
    upsert_rows(db, model, [{**dict(zip(keys, key)), **values} for key, values in changed.items()
                            if values is not None], conflict=keys)
    if changed:
        forget(db, model)
    return changed


# A statement carries at most 65,535 bound values (the PostgreSQL protocol's limit, pg8000 and psycopg alike).
MAX_BOUND_VALUES = 65_535


def insert_rows(db, model, rows: Iterable[dict]) -> list[dict]:
    """One multi-row INSERT of `rows` (Python-side defaults filled in), or as few as the protocol's limit on bound
    values allows; answers the rows as inserted."""
    values = _complete(model, _rows(rows))
    if values:
        per_statement = max(1, MAX_BOUND_VALUES // max(len(row) for row in values))
        for start in range(0, len(values), per_statement):
            db.execute(model.__table__.insert().values(values[start:start + per_statement]))
    return values


def update_rows(db, table, rows: list[dict]) -> None:
    """`table`'s rows named by each dict's `id` given the dict's other values (the dicts share their keys), in one
    statement whatever their number on Postgres: the rows travel as one JSON parameter that
    json_populate_recordset turns into rows of the table's own type, so each value is read as its column's type
    (numeric money exact from its text, timestamps with their offset, dates, strings, nulls), and one
    `UPDATE ... FROM` writes them (an executemany is one statement per row on pg8000: docs/decisions.md, "Bulk
    writes"); a column refreshed on every update (`updated_at`) the dicts leave out is set as a Core UPDATE would
    (one value for the batch). Elsewhere (SQLite, embedded: no round trips) an executemany, one row after another."""
    if not rows:
        return
    # the columns refreshed on every update (`updated_at`) that the rows leave out, as a Core UPDATE sets them
    stamps = {column.key: column.onupdate.arg({}) if column.onupdate.is_callable else column.onupdate.arg
              for column in table.columns
              if column.onupdate is not None and column.key not in rows[0]
              and (column.onupdate.is_callable or column.onupdate.is_scalar)}
    rows = [{**row, **stamps} for row in rows]
    keys = [key for key in rows[0] if key != "id"]
    if db.get_bind().dialect.name != "postgresql":
        db.execute(table.update().where(table.c.id == bindparam("b_id"))
                   .values({key: bindparam(f"b_{key}") for key in keys}),
                   [{f"b_{key}": value for key, value in row.items()} for row in rows])
        return
    import orjson

    db.execute(_update_template(table, tuple(keys)), {"rows": orjson.dumps(
        [{table.c[key].name: value for key, value in row.items()} for row in rows],
        default=_json_value, option=orjson.OPT_NAIVE_UTC).decode()})


@cache
def _update_template(table, keys: tuple[str, ...]):
    """The statement of `update_rows` on Postgres for these columns of `table` (built once per column set)."""
    names = [table.c[key].name for key in keys]
    assignments = ", ".join(f'"{name}" = v."{name}"' for name in names)
    return text(f'UPDATE {table.name} SET {assignments} '
                f'FROM json_populate_recordset(NULL::{table.name}, CAST(:rows AS json)) AS v '
                f'WHERE {table.name}.id = v.id')


def _json_value(value):
    """A value orjson does not write: a Decimal as its exact text (json_populate_recordset reads it as numeric)."""
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"not JSON: {type(value).__name__}")


def insert_later(db, model, values: dict):
    """One new `model` row written by a Core INSERT run with `wms_later` (core.db.writes_later): on pg8000 it
    waits in the send buffer and leaves with the request's next statement, so it costs no round trip of its
    own; a failure raises its own SQLSTATE at that statement (or the COMMIT), the same 400 or 409 as a flush.
    Answers the object as `db.add` and `db.flush` would leave it: persistent in the session's identity map,
    every column set (the Python-side defaults filled in; a column with neither a value nor a default is NULL,
    as the ORM writes it), nothing to reload. Pending ORM changes are flushed first, so the rows go out in
    the order they were made."""
    from sqlalchemy.orm import make_transient_to_detached

    db.flush()
    row = _complete(model, [values])[0]
    for column in model.__table__.columns:
        if column.server_default is None:
            row.setdefault(column.key, None)  # every column named: one statement text whatever was given
    db.execute(model.__table__.insert(), row, execution_options=WRITE_LATER)
    obj = model(**row)
    make_transient_to_detached(obj)
    db.add(obj)
    return obj


def set_positions(db, model, column, ids: Sequence[str], *, where=None) -> None:
    """`column` = index in `ids` for each row named, in one UPDATE statement."""
    if not ids:
        return
    stmt = (update(model).where(model.id.in_(list(ids)))
            .values({column: case({row_id: index for index, row_id in enumerate(ids)}, value=model.id)}))
    if where is not None:
        stmt = stmt.where(where)
    db.execute(stmt.execution_options(synchronize_session="fetch"))


def reorder(db, model, column, ids: Sequence[str], *, parent, field: str, what: str) -> None:
    """A whole-order change: `column` = index in `ids` for each row, every id a row under `parent` (a WHERE
    clause, such as `Item.list_id == list_id`) named once; else a 400 naming `field`, before any write.
    The caller holds the parent's lock (`lock_row`), so the result is exactly one request's order."""
    ids = list(ids)
    if len(set(ids)) != len(ids):
        raise BadRequest(f"{field} names an id twice", details=[{"field": field, "message": "duplicate id"}])
    found = set(db.scalars(select(model.id).where(model.id.in_(ids), parent))) if ids else set()
    unknown = [row_id for row_id in ids if row_id not in found]
    if unknown:
        raise BadRequest(f"{field} must name {what}",
                         details=[{"field": field, "message": f"not one of {what}: {row_id}"} for row_id in unknown[:10]])
    set_positions(db, model, column, ids)  # one statement


def claim_row(db, model, column, *where, stale, returning=()):
    """Claim the row `where` selects for one run of provider calls: one conditional UPDATE setting `column` (a
    `..._since` timestamp) to now, taken only when it is empty or older than `stale` (a dead run's). Answers
    `(token, row)` (`row`: the `returning` columns as the UPDATE found them, after any write it waited for) or
    None when another run holds it (or `where` matches nothing). `updated_at` is left alone: a claim is no change
    of the record. The caller commits it (`release_connection`) before calling a provider."""
    from .ids import utcnow

    now = utcnow()
    stmt = (update(model).where(*where, or_(column.is_(None), column < now - stale))
            .values({column.key: now, "updated_at": model.updated_at}).execution_options(synchronize_session=False))
    if returning:
        row = db.execute(stmt.returning(*returning)).first()
        return None if row is None else (now, row)
    return (now, None) if db.execute(stmt).rowcount == 1 else None


def let_go(record, column, token) -> None:
    """Clear `record`'s claim (`column`, an attribute) with the outcome, unless a later run took it over (this one
    outlived the stale bound)."""
    if getattr(record, column.key) == token:
        setattr(record, column.key, None)
