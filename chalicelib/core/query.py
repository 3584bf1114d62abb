"""Query pieces every area's lists share."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cache, wraps
from typing import Any

from sqlalchemy import (Boolean, Date, DateTime, Float, Integer, Numeric, String, Text, Uuid, and_, bindparam, cast,
                        func, literal_column, or_, select)
from sqlalchemy.sql import Select, visitors
from sqlalchemy.sql.elements import BindParameter

from chalicelib.core.db import json_value
from chalicelib.core.errors import not_found
from chalicelib.core.serialize import flag, value_out
from chalicelib.core.timeutil import iso

# The most rows a list answers (decisions.md section 4); a paged list answers `total` beside them.
LIST_LIMIT = 500
# How far a paged list counts beyond its page (docs/decisions/paging.md): `total` is exact when no more than
# this many rows (or offset + limit, when larger) match; beyond, `total` says how many at least match and
# `total_exact` is 0. Counting every row made a first page's cost grow with the table (50,000 rows: 2 ms).
COUNT_LIMIT = 10_000


def contains_text(term: str, *columns):
    """Case-insensitive substring match of `term` in any of `columns`; `%` and `_` match literally. True or
    false, never NULL; the bare column is matched (no function around it), so a pg_trgm index on it serves."""
    def match(column):
        found = column.icontains(term, autoescape=True)
        return found if getattr(column, "nullable", True) is False else and_(column.is_not(None), found)

    return or_(*(match(column) for column in columns))


def first_per(stmt, partition_by, order_by, limit: int = LIST_LIMIT):
    """`stmt` keeping at most `limit` rows per value of `partition_by`, the first by `order_by` (a rank in a
    subquery: one statement whatever the groups). Its columns are `stmt`'s."""
    rank = func.row_number().over(partition_by=partition_by, order_by=order_by).label("rank_in_group")
    inner = stmt.add_columns(rank).subquery("ranked")
    return select(*(column for column in inner.c if column.name != "rank_in_group")).where(
        inner.c.rank_in_group <= limit)


def tree_ids(id_column, parent_column, start, name: str):
    """SELECT of the ids of the rows matching `start` and of the rows below them at any depth, following
    `parent_column` (which holds the id of the row above) down: one recursive statement; UNION stops on a cycle
    already stored. `name` names the CTE (distinct names when several trees go in one statement)."""
    tree = select(id_column).where(start).cte(name, recursive=True)
    tree = tree.union(select(id_column).join(tree, parent_column == tree.c[id_column.key]))
    return select(tree.c[id_column.key])


def in_scope(stmt, scope):
    """`stmt` limited to `scope`, an area's scope clause (None: the caller sees everything)."""
    return stmt if scope is None else stmt.where(scope)


def visible_row(db, model, row_id: str, scope, what: str):
    """The `model` row with this id if it is inside `scope` (a WHERE clause, or None for no limit; for a child
    row, the clause naming its parent: `LineItem.budget_id == budget_id`).

    404 `"<what> not found"` otherwise: a row out of the caller's scope looks missing. One query.
    """
    row = db.scalar(in_scope(select(model).where(model.id == row_id), scope))
    if row is None:
        raise not_found(what)
    return row


@dataclass(frozen=True)
class Page:
    """One page of a list: its records and where they sit in the whole (`total` rows match)."""

    items: list
    total: int
    limit: int
    offset: int
    total_exact: bool = True

    def body(self, key: str) -> dict:
        """The response body `{key: [...], total, total_exact, limit, offset}` (built in api.py), a PageBody:
        the endpoint decorator cuts it to the rows a Lambda answer can carry (core.http.fit_page)."""
        return PageBody(key, {key: self.items, "total": self.total, "total_exact": 1 if self.total_exact else 0,
                              "limit": self.limit, "offset": self.offset})


class FitBody(dict):
    """A response body whose list at `page_key` may be cut to the rows that fit a Lambda answer
    (core.http.fit_page), in order. `limit_key`: the key that then says how many rows it carries (None: the body
    tells it otherwise, as a task detail's `task.subtask_count` beside its `subtasks`). `then`: more lists of a
    detail, `(key, limit_key)` each, filled in that order with the room the earlier ones leave (none once one is
    cut: a portal project's goals, then its decisions)."""

    limit_key: str | None = None

    def __init__(self, page_key: str, body: dict, *, limit_key: str | None = None,
                 then: tuple[tuple[str, str | None], ...] = ()):
        super().__init__(body)
        self.page_key = page_key
        if limit_key is not None:
            self.limit_key = limit_key
        self.cuts = ((page_key, self.limit_key), *then)


class PageBody(FitBody):
    """A paged list's response body: cut, its `limit` says how many rows it carries."""

    limit_key = "limit"


def paginate(db, stmt, query, record=lambda row: row, exact_total: bool = False) -> Page:
    """`stmt` (ordered) cut to the query's `limit` and `offset` (core.schemas.PageQuery), with the total:
    one statement when the first page holds every row, two otherwise (never one per row). The count reads at
    most `count_window` rows; `exact_total` counts every row (a total the specification promises)."""
    rows = db.execute(stmt.limit(query.limit).offset(query.offset)).all()
    window = count_window(query, exact_total)
    total, exact = (counted_total(db.scalar(total_select(stmt, window)), window) if needs_total(query, len(rows))
                    else (len(rows), True))
    return Page([record(row) for row in rows], total, query.limit, query.offset, exact)


def needs_total(query, rows: int) -> bool:
    """Whether a page of `rows` rows must count the whole: not when the first page holds every row."""
    return not (query.offset == 0 and rows < query.limit)


def count_window(query, exact_total: bool = False) -> int | None:
    """How many rows a page's count reads at most before it stops: COUNT_LIMIT, or the end of the asked page
    when that is further (so that a client walking the pages always learns whether another follows); None
    (every row) for an exact total."""
    return None if exact_total else max(COUNT_LIMIT, query.offset + query.limit)


def counted_total(n: int, window: int | None) -> tuple[int, bool]:
    """(total, exact) from a count read by `total_select(stmt, window)`: past the window, at least `window`
    rows match and the total says so inexactly."""
    return (n, True) if window is None or n <= window else (window, False)


def total_select(stmt, window=None):
    """The count of the rows `stmt` (ordered) selects, reading at most `window` + 1 of them (None: all; or a
    bind parameter holding that limit): one row, column `n`. It counts a one-column copy of the statement (the
    same FROM, joins and WHERE): wrapping a wide list's every column in a subquery cost more to build than the
    count itself. A DISTINCT or grouped statement, whose rows depend on its columns, is counted whole."""
    if isinstance(stmt, Select) and not (stmt._distinct or stmt._distinct_on or stmt._group_by_clauses):
        stmt = stmt.with_only_columns(literal_column("1"), maintain_column_froms=True)
    stmt = stmt.order_by(None)
    if window is not None:
        stmt = stmt.limit(window if isinstance(window, BindParameter) else window + 1)
    return select(func.count().label("n")).select_from(stmt.subquery())


# --- read rows as response-ready dicts ------------------------------------------------------------

def _as_float(value):
    return None if value is None else float(value)


def _as_iso(value):
    """A timestamp as Postgres writes it in JSON (any offset, 0 to 6 fraction digits, trailing zeros dropped)
    in the API's form (core.timeutil.iso: UTC, Z, six fraction digits or none). In UTC it is text work alone."""
    if value is None:
        return None
    if value.endswith("+00:00") and len(value) >= 25 and value[10] == "T":
        body = value[:-6]
        return (body.ljust(26, "0") if len(body) > 19 else body) + "Z"
    return iso(datetime.fromisoformat(value))


# --- reads built once ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Read:
    """One read: a statement and this request's values of its named bind parameters (and the 0/1 flag
    columns of its records). A statement from a `template` is built once per process, so a request pays
    neither its construction nor its cache key (together about a millisecond for a detail's lookups)."""

    stmt: Any
    params: dict = field(default_factory=dict)
    flags: tuple = ()


_TEMPLATES: dict[int, Any] = {}  # id -> statement, kept alive: what `template` built
_DERIVED: dict[tuple, Any] = {}  # what is built from templates alone (wrappers, converters), by their ids
_CONVERTERS: dict[tuple, tuple] = {}  # converters of statements built per request, by their columns
CONVERTER_CACHE = 256


def template(build):
    """Decorator for a function that builds a statement with named bind parameters from hashable arguments
    (a dialect name, a few booleans): it runs once per distinct arguments and its statement is marked as a
    template, so that what record_rows and record_sets build around it is built once too."""
    cached = cache(build)

    @wraps(build)
    def get(*args):
        return _kept(cached(*args))

    return get


def _kept(stmt):
    """`stmt` marked as a template (kept alive for the process: what is derived from it is kept by its id)."""
    _TEMPLATES.setdefault(id(stmt), stmt)
    return stmt


def ids_param(column, name: str, postgres: bool):
    """`column IN :name` for a template (core.lookup.among's two forms): on Postgres the ids travel as one
    text parameter split there (`ids_value` joins them), elsewhere as an expanding list."""
    if postgres:
        return column.in_(select(func.unnest(func.string_to_array(bindparam(name, type_=String), ","))))
    return column.in_(bindparam(name, expanding=True))


def ids_value(ids, postgres: bool):
    """The value of an `ids_param` parameter; None when an id holds a comma on Postgres (then the caller
    builds its statement with core.lookup.among instead)."""
    ids = sorted({value for value in ids if value})
    if not postgres:
        return ids
    return None if any("," in value for value in ids) else ",".join(ids)


def _derived(key: tuple, stmts, build):
    """`build()` once for templates (`key` holds their ids), every time otherwise."""
    if all(id(stmt) in _TEMPLATES for stmt in stmts):
        found = _DERIVED.get(key)
        if found is None:
            found = _DERIVED[key] = build()
        return found
    return build()


def _read(value) -> Read | None:
    if value is None or isinstance(value, Read):
        return value
    if isinstance(value, tuple):
        return Read(value[0], {}, tuple(value[1]))
    return Read(value)


# column types whose JSON values are strings, booleans, 64-bit integers, or numbers the answer makes floats of
_PLAIN_TYPES = (String, Integer, Boolean, Date, DateTime, Numeric, Float, Uuid)


def _record_shape(stmt, flags) -> tuple[list, bool]:
    """`([(key, convert), ...], check)` for the records of `stmt`: the converters of the columns whose JSON
    value is not yet the API's value (timestamps: API form, UTC with Z; exact decimals and floats: a float, as
    row_dict answers, JSON writes 12.0 as 12; the named 0/1 flags), and whether a record may hold an integer
    beyond 64 bits that orjson would read as a float (a JSON column, or one of no known type: core.db.json_value
    checks those records). From the statement's `selected_columns` (a subquery's `.c` would build a proxy of
    every column: a millisecond for a wide table); once per template."""
    def build():
        out, check = [], False
        for column in stmt.selected_columns:
            impl = getattr(column.type, "impl", column.type)
            if column.name in flags:
                out.append((column.name, flag))
            elif isinstance(impl, DateTime):
                out.append((column.name, _as_iso))
            elif isinstance(impl, (Numeric, Float)) and not isinstance(impl, Integer):
                out.append((column.name, _as_float))
            elif not isinstance(impl, _PLAIN_TYPES):
                check = True
        return out, check

    if id(stmt) in _TEMPLATES:
        return _derived(("converters", id(stmt), tuple(flags)), [stmt], build)
    # a statement built per request (a list's filters): its columns are those of the select it was built from,
    # so the shape is kept by the identity of its column list (`.where()`, `.order_by()` and `.limit()` share
    # it); the entry holds the columns, so no id in its key can be reused while it lives
    raw = tuple(getattr(stmt, "_raw_columns", None) or ())
    if not raw:  # a union or a textual statement: built every time
        return build()
    key = (tuple(map(id, raw)), tuple(flags))
    found = _CONVERTERS.get(key)
    if found is None:
        if len(_CONVERTERS) >= CONVERTER_CACHE:
            _CONVERTERS.clear()
        found = _CONVERTERS[key] = (raw, build())
    return found[1]


def _convert(rows, converters) -> list:
    if converters:
        for row in rows:
            for key, convert in converters:
                row[key] = convert(row[key])
    return rows


def record_rows(db, stmt, flags=()) -> list[dict]:
    """The rows of `stmt` (any select whose columns have distinct names: `select(Model)`, or a model's columns
    with labelled joined ones; or a `Read`) as records `{column name: value}` in the response form of
    core.serialize.row_dict (flags 0/1, ISO timestamps, floats), without ORM instances.

    On Postgres each row comes back as the text of one JSON value (`row_to_json`), which orjson decodes in C: for
    a 100-row page of a wide table that is about a third of the time pg8000 takes to parse the columns one by
    one, and no identity map is filled. The text, not the json type, so that the driver's JSON reader does not
    look for 64-bit overflows in rows whose columns cannot hold them (`_record_shape`). Elsewhere (SQLite),
    plain rows converted by `value_out`."""
    read = stmt if isinstance(stmt, Read) else Read(stmt, {}, tuple(flags))
    if db.get_bind().dialect.name == "postgresql":
        read = _shaped(read)
        wrapped = _derived(("rows", id(read.stmt)), [read.stmt], lambda: select(
            cast(func.row_to_json(read.stmt.subquery("record_row").table_valued()), Text)))
        converters, check = _record_shape(read.stmt, read.flags)
        return _convert([json_value(data, check) for data in db.execute(wrapped, read.params).scalars()],
                        converters)
    flag_set = set(read.flags)
    return [{key: flag(value) if key in flag_set else value_out(value) for key, value in row.items()}
            for row in db.execute(select(read.stmt.subquery("record_row")), read.params).mappings()]


def record_sets(db, **sets) -> dict[str, list[dict]]:
    """Several independent reads in one statement: `record_sets(db, todos=read, watchers=stmt, ...)` (a
    `Read`, a statement, `(statement, flags)`, or None for an empty list without asking) answers
    `{"todos": [records], "watchers": [records]}` as `record_rows` would for each.

    On Postgres one round trip: `SELECT (SELECT json_agg(r) FROM (<todos>) r) AS todos, (...) AS watchers`,
    built once when every read comes from a `template`. Each set keeps its statement's order (the aggregate
    reads its ordered subquery as it comes, which Postgres does when the outer level adds no join or sort;
    keep a LIMIT on a set that must stay ordered). The reads' parameter names must not clash. Elsewhere
    (SQLite) one statement a set."""
    reads = {name: _read(value) for name, value in sets.items()}
    out = {name: [] for name in reads}
    reads = {name: read for name, read in reads.items() if read is not None}
    if not reads:
        return out
    if db.get_bind().dialect.name != "postgresql":
        for name, read in reads.items():
            out[name] = record_rows(db, read)
        return out
    params: dict = {}
    for name, read in list(reads.items()):
        shaped = _shaped(read)
        if shaped is not read and all(params.get(key, value) == value for key, value in shaped.params.items()):
            reads[name] = read = shaped  # (the same shape twice with other values: the second stays as it is)
        for key, value in read.params.items():
            if params.setdefault(key, value) != value:
                raise ValueError(f"record_sets: parameter {key} has two values")

    def build():
        return select(*(cast(select(func.json_agg(read.stmt.subquery(f"set_{name}").table_valued()))
                             .scalar_subquery(), Text).label(name) for name, read in reads.items()))

    stmt = _derived(("sets",) + tuple((name, id(read.stmt)) for name, read in reads.items()),
                    [read.stmt for read in reads.values()], build)
    row = db.execute(stmt, params).one()
    for (name, read), data in zip(reads.items(), row):
        converters, check = _record_shape(read.stmt, read.flags)
        out[name] = _convert(json_value(data, check) if data is not None else [], converters)
    return out


def grouped(rows, key: str) -> dict[str, list[dict]]:
    """`{row[key]: [row, ...]}` of records read with record_sets, each list in the order of the rows' `seq`
    column (a `row_number()` the read selects: a set's aggregate need not keep its subquery's order without a
    LIMIT); `key` and `seq` are taken out of the rows."""
    out: dict[str, list[dict]] = {}
    for row in sorted(rows, key=lambda r: r["seq"]):
        del row["seq"]
        out.setdefault(row.pop(key), []).append(row)
    return out


# --- statements built per request, kept per shape -----------------------------------------------------

SHAPES_MAX = 512  # statement shapes a process keeps (beyond: statements are built and keyed per call)
_SHAPES: dict = {}  # cache key of a statement built per request -> (template copy, parameter names)
_PAGE_LIMIT, _PAGE_OFFSET, _COUNT_LIMIT = "wms_page_limit", "wms_page_offset", "wms_count_limit"


def _shape(stmt) -> tuple[Any, dict] | None:
    """A statement built per request (a list's filters, a detail's id) as a template of its shape and this
    statement's values for it: `(template, {name: value})`; None when it is a template already, has no cache
    key, or SHAPES_MAX shapes are kept (the caller uses it as it is).

    SQLAlchemy finds a statement's compiled form by walking it (its cache key), and record_rows, record_page
    and record_sets wrap it (row_to_json, its count, the statement that carries the lookups) and so walk it
    again, after building each wrapper: about a millisecond on a list request. Here the statement is walked
    once; its shape is kept as a copy whose values are named parameters (`wms_v<n>_<i>`, in the order of the
    cache key's bind parameters), marked as a template, so that its wrappers are built once per shape and
    SQLAlchemy keeps their keys; each request passes its own values."""
    if id(stmt) in _TEMPLATES:
        return None
    key = stmt._generate_cache_key()
    if key is None:
        return None
    entry = _SHAPES.get(key.key)
    if entry is None:
        if len(_SHAPES) >= SHAPES_MAX:
            return None
        number = len(_SHAPES)
        positions = {id(bind): i for i, bind in enumerate(key.bindparams)}
        names = tuple(f"wms_v{number}_{i}" for i in range(len(key.bindparams)))

        def named(element, **_kw):
            i = positions.get(id(element)) if isinstance(element, BindParameter) else None
            if i is None:
                return None
            return bindparam(names[i], type_=element.type, expanding=element.expanding,
                             literal_execute=element.literal_execute, required=True)

        copy = visitors.replacement_traverse(stmt, {}, named)
        copied = copy._generate_cache_key()
        if copied is None or tuple(bind.key for bind in copied.bindparams) != names:
            return None  # a value the copy does not carry as a named parameter: not kept
        entry = _SHAPES[key.key] = (_kept(copy), names)
    copy, names = entry
    return copy, {name: bind.effective_value for name, bind in zip(names, key.bindparams)}


def _shaped(read: Read) -> Read:
    """`read` with its statement as a kept shape (`_shape`) when it is built per request and has no
    parameters of its own."""
    if read.params:
        return read
    kept = _shape(read.stmt)
    return read if kept is None else Read(kept[0], kept[1], read.flags)


def record_page(db, stmt, query, flags=(), lookups=None, exact_total: bool = False):
    """`paginate` with `record_rows`: the page's rows as records, then its total (counted only when the first
    page is full or an offset is asked; within `count_window`, as `paginate`). `lookups(rows)`: the reads that
    follow the rows (`{name: read}`, as record_sets takes them); they and the count travel in one statement,
    and the answer is `(page, {name: records})`. Without: the page alone (the count, when asked, a statement
    of its own). On Postgres the page and count statements are built once per shape of `stmt` (`_shape`)."""
    window = count_window(query, exact_total)
    kept = _shape(stmt) if db.get_bind().dialect.name == "postgresql" else None
    if kept is not None:
        copy, values = kept
        page = _derived(("page", id(copy)), [copy], lambda: _kept(copy.limit(
            bindparam(_PAGE_LIMIT, type_=Integer, required=True)).offset(
            bindparam(_PAGE_OFFSET, type_=Integer, required=True))))
        rows = record_rows(db, Read(page, {**values, _PAGE_LIMIT: query.limit, _PAGE_OFFSET: query.offset},
                                    tuple(flags)))
    else:
        rows = record_rows(db, stmt.limit(query.limit).offset(query.offset), flags)
    counted = needs_total(query, len(rows))
    reads = dict(lookups(rows)) if lookups is not None else {}
    if counted and kept is not None:
        total = _derived(("total", id(copy), window is None), [copy], lambda: _kept(total_select(
            copy, None if window is None else bindparam(_COUNT_LIMIT, type_=Integer, required=True))))
        reads["page_total"] = Read(total, values if window is None else {**values, _COUNT_LIMIT: window + 1})
    elif counted:
        reads["page_total"] = total_select(stmt, window)
    sets = record_sets(db, **reads) if reads else {}
    total, exact = counted_total(sets.pop("page_total")[0]["n"], window) if counted else (len(rows), True)
    page = Page(rows, total, query.limit, query.offset, exact)
    return (page, sets) if lookups is not None else page
