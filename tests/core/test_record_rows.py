"""core.query.record_rows / record_sets answer what core.serialize.row_dict answers for the same rows (the API's
form: 0/1 flags, ISO timestamps in UTC with Z, floats), on Postgres through row_to_json and on SQLite through
plain rows; record_sets sends several reads in one statement and keeps each read's order."""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from chalicelib.areas.tasks.models import Task, TaskTodo
from chalicelib.core.query import _as_iso, record_rows, record_sets
from chalicelib.core.serialize import columns, row_dict
from chalicelib.core.timeutil import iso


@pytest.mark.parametrize("text", [
    "2026-11-23T19:22:36.98412+00:00", "2026-11-23T19:22:36+00:00", "2026-11-23T19:22:36.000001+00:00",
    "2026-11-23T19:22:36.1+00:00", "2026-11-23T19:22:36.5+11:00", "2026-02-28T23:59:59.999999-05:30",
])
def test_json_timestamps_take_the_api_form(text):
    assert _as_iso(text) == iso(datetime.fromisoformat(text))
    assert _as_iso(None) is None


def _tasks(db, user_id):
    base = datetime(2026, 11, 23, 19, 22, 36, 984120, tzinfo=timezone.utc)
    tasks = []
    for index, micro in enumerate((984120, 0, 1, 100000)):
        task = Task(title=f"T{index}", created_by=user_id, is_private=bool(index % 2), sort_order=index,
                    estimated_hours=[2.0, 1.5, None, 12.0][index], due_date=date(2026, 12, 1 + index),
                    approved_at=base.replace(microsecond=micro) + timedelta(days=index))
        db.add(task)
        tasks.append(task)
    db.flush()
    return tasks


def test_record_rows_match_row_dict(app, db, exec_user):
    tasks = _tasks(db, exec_user.id)
    db.expire_all()
    stmt = select(Task).where(Task.id.in_([t.id for t in tasks])).order_by(Task.sort_order)
    expected = [row_dict(task, columns(Task), ("is_private",)) for task in db.scalars(stmt)]
    records = record_rows(db, stmt, ("is_private",))
    assert records == expected
    assert [r["title"] for r in records] == ["T0", "T1", "T2", "T3"]
    assert records[1]["is_private"] == 1 and records[0]["is_private"] == 0
    assert records[0]["estimated_hours"] == 2.0 and isinstance(records[0]["estimated_hours"], float)
    assert records[1]["approved_at"].endswith("Z") and records[0]["approved_at"].endswith(".984120Z")


def test_record_sets_one_statement_each_in_order(app, db, exec_user, count_queries):
    tasks = _tasks(db, exec_user.id)
    db.add_all([TaskTodo(task_id=tasks[0].id, title=f"todo {i}", position=9 - i, is_done=i == 3) for i in range(10)])
    db.flush()
    todos = (select(TaskTodo.id, TaskTodo.title, TaskTodo.is_done).where(TaskTodo.task_id == tasks[0].id)
             .order_by(TaskTodo.position).limit(500))
    ordered = select(Task).where(Task.id.in_([t.id for t in tasks])).order_by(Task.sort_order.desc()).limit(500)
    with count_queries() as counted:
        sets = record_sets(db, todos=(todos, ("is_done",)), tasks=ordered, nothing=None)
    assert counted.count == (1 if db.get_bind().dialect.name == "postgresql" else 2)
    assert [t["title"] for t in sets["todos"]] == [f"todo {i}" for i in range(9, -1, -1)]
    assert [t["is_done"] for t in sets["todos"]].count(1) == 1
    assert [t["title"] for t in sets["tasks"]] == ["T3", "T2", "T1", "T0"]
    assert sets["nothing"] == []
    empty = record_sets(db, none=select(Task).where(Task.id == "missing"))
    assert empty == {"none": []}


def test_templates_are_built_once_and_carry_the_request_values(app, db, exec_user, employee):
    from chalicelib.core import query
    from chalicelib.core.lookup import names_select

    first = names_select(db, user_ids=[exec_user.id], item_ids=[])
    second = names_select(db, user_ids=[employee.id, None], item_ids=[])
    assert first.stmt is second.stmt and first.params != second.params
    found = record_sets(db, a=first)["a"]
    assert [(r["kind"], r["id"], r["a"]) for r in found] == [("u", exec_user.id, exec_user.name)]
    assert [r["id"] for r in record_sets(db, a=second)["a"]] == [employee.id]
    if db.get_bind().dialect.name == "postgresql":  # one statement around the sets, built once
        wrapped = [key for key in query._DERIVED if key[0] == "sets" and key[1:] == (("a", id(first.stmt)),)]
        assert len(wrapped) == 1
        with pytest.raises(ValueError):  # one statement: one value a parameter name
            record_sets(db, a=first, b=query.Read(first.stmt, {"lookup_user_ids": "other"}))


def test_ids_read_is_one_template_and_an_id_with_a_comma_gets_its_own_statement(app, db, exec_user):
    from chalicelib.core.lookup import ids_read
    from chalicelib.core.models import User

    def users_named(user_in):
        return select(User.id, User.name).where(user_in(User.id))

    first = ids_read(db, users_named, "test_user_ids", [exec_user.id, None])
    again = ids_read(db, users_named, "test_user_ids", [exec_user.id, "missing"])
    assert first.stmt is again.stmt
    assert record_sets(db, a=first)["a"] == [{"id": exec_user.id, "name": exec_user.name}]
    assert ids_read(db, users_named, "test_user_ids", [None, ""]) is None
    odd = ids_read(db, users_named, "test_user_ids", [exec_user.id, "a,b"])
    if db.get_bind().dialect.name == "postgresql":  # the ids travel joined by commas there
        assert odd.stmt is not first.stmt and not odd.params
    assert [r["id"] for r in record_sets(db, a=odd)["a"]] == [exec_user.id]


def test_converters_of_a_statement_built_per_request_follow_its_columns():
    """A list's statement is built per request from one select (its filters added by `.where()`): its converters
    are built once for those columns, and a statement with other columns gets its own."""
    from sqlalchemy import Boolean, Column, DateTime, MetaData, Numeric, String, Table, select, union_all

    from chalicelib.core import query

    table = Table("converter_probe", MetaData(), Column("id", String), Column("at", DateTime(timezone=True)),
                  Column("amount", Numeric(10, 2)), Column("done", Boolean))
    base = select(table.c.id, table.c.at, table.c.amount, table.c.done)
    first = query._record_shape(base.where(table.c.id == "a").limit(5), ("done",))
    again = query._record_shape(base.where(table.c.id == "b").order_by(table.c.id), ("done",))
    assert first is again and [key for key, _ in first[0]] == ["at", "amount", "done"] and first[1] is False
    assert [key for key, _ in query._record_shape(base, ())[0]] == ["at", "amount"]  # the flags are in the key
    narrower, check = query._record_shape(select(table.c.id, table.c.amount.label("at")), ())
    assert [(key, convert) for key, convert in narrower] == [("at", query._as_float)] and check is False
    both = union_all(select(table.c.at), select(table.c.at))
    assert [key for key, _ in query._record_shape(both, ())[0]] == ["at"]  # no column list of its own: built


BIG = 123456789012345678901234567890  # beyond 64 bits: orjson alone would read a float


def test_records_with_a_json_column_keep_integers_beyond_64_bits(db):
    """Records come back as JSON text read by orjson; a record whose statement has a JSON column (or a column of
    no known type) is read again by json.loads when orjson made a float of a long integer, in record_rows and
    record_sets alike. A float8 NaN (which orjson refuses) reads as json.loads reads it."""
    import math

    from sqlalchemy import JSON, Float, String, cast, literal, select

    from chalicelib.core import query
    from chalicelib.core.query import record_rows, record_sets

    if db.get_bind().dialect.name != "postgresql":
        pytest.skip("records are read as JSON text on Postgres; SQLite reads plain rows")
    doc = cast(literal(f'{{"n": {BIG}, "deep": [{{"m": -{BIG}}}], "f": 1.5e19}}'), JSON)
    stmt = select(literal("a", String).label("id"), doc.label("doc"))
    assert query._record_shape(stmt, ())[1] is True
    expected = {"id": "a", "doc": {"n": BIG, "deep": [{"m": -BIG}], "f": 1.5e19}}
    assert record_rows(db, stmt) == [expected]
    assert record_sets(db, one=stmt, two=select(literal("b", String).label("id")))["one"] == [expected]
    assert type(record_rows(db, stmt)[0]["doc"]["n"]) is int
    nan = select(literal("a", String).label("id"), cast(literal("NaN"), Float).label("x"))
    assert query._record_shape(nan, ())[1] is False
    assert math.isnan(record_rows(db, nan)[0]["x"]) and math.isnan(record_sets(db, s=nan)["s"][0]["x"])


def test_grouped_orders_each_list_by_seq_and_drops_the_key():
    from chalicelib.core.query import grouped

    rows = [{"owner": "b", "v": 3, "seq": 3}, {"owner": "a", "v": 2, "seq": 2}, {"owner": "a", "v": 1, "seq": 1}]
    assert grouped(rows, "owner") == {"a": [{"v": 1}, {"v": 2}], "b": [{"v": 3}]}


def test_statements_built_per_request_are_kept_by_shape_with_their_own_values(db, exec_user):
    """record_rows and record_sets read a statement built per request through the kept template of its shape
    (core.query._shape) with its own values; the same shape twice in one record_sets with other values keeps
    both answers apart."""
    from sqlalchemy import select

    from chalicelib.core import query
    from chalicelib.core.models import User
    from tests.factories import make_user

    other = make_user(db, email="shape.other@agency.test", name="Shape Other")

    def named(user_id):
        return select(User.id, User.name).where(User.id == user_id)

    assert record_rows(db, named(exec_user.id)) == [{"id": exec_user.id, "name": exec_user.name}]
    assert record_rows(db, named(other.id)) == [{"id": other.id, "name": "Shape Other"}]
    sets = record_sets(db, a=named(exec_user.id), b=named(other.id), c=named(exec_user.id))
    assert sets == {"a": [{"id": exec_user.id, "name": exec_user.name}], "b": [{"id": other.id, "name": "Shape Other"}],
                    "c": [{"id": exec_user.id, "name": exec_user.name}]}
    if db.get_bind().dialect.name == "postgresql":
        kept = query._shape(named("x"))
        assert kept is not None and kept[1] == {kept[0]._generate_cache_key().bindparams[0].key: "x"}
        assert query._shape(kept[0]) is None  # a template is used as it is
