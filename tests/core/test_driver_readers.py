"""The readers core/db.py installs on pg8000 connections (timestamps by fromisoformat, json and jsonb by orjson)
answer what the driver's own readers answer, and hand what they cannot read to those readers."""
from __future__ import annotations

import json
from datetime import date, datetime, timezone

import pytest
from sqlalchemy import text


def _pg8000(db):
    if db.get_bind().dialect.driver != "pg8000":
        pytest.skip("the readers are installed on pg8000 connections")


LITERALS = [
    '{"a": 1, "b": [1.5, "x", null, true], "c": {"d": "\\u00e9"}}',
    '[1, 2, 3]',
    '"text"',
    '{"big": 123456789012345678901234567890}',  # beyond 64 bits: orjson would read a float
    '{"big": -9223372036854775809, "id": "1234567890123456789012"}',
    '{"u64": 18446744073709551615, "f": 0.1}',
    '[{"deep": {"n": 123456789012345678901234567890}}]',  # nested
    '123456789012345678901234567890',  # a bare number
    '{"f": 1.5e19, "g": -2.5e19, "h": 3.25, "n": 1234567890123456789}',  # floats, big and small: orjson's
    '[18446744073709551616, -9223372036854775809]',  # just past each end of orjson's integers
]
LONE_SURROGATE = '{"lone": "\\ud800"}'  # orjson refuses it; json stores it, jsonb does not


@pytest.mark.parametrize("kind, literal", [(kind, literal) for kind in ("json", "jsonb") for literal in LITERALS]
                         + [("json", LONE_SURROGATE)])
def test_json_values_read_as_json_loads_reads_them(db, literal, kind):
    _pg8000(db)
    value = db.execute(text(f"SELECT CAST(:v AS {kind})"), {"v": literal}).scalar_one()
    assert value == json.loads(literal)


def test_row_to_json_rows_and_timestamps(db):
    _pg8000(db)
    row = db.execute(text("SELECT row_to_json(r) FROM (SELECT 1.25::float8 AS f, 'NaN'::float8 AS nan, "
                          "42::bigint AS n, 'x' AS s) AS r")).scalar_one()
    assert row["f"] == 1.25 and row["n"] == 42 and row["s"] == "x"
    assert str(row["nan"]).lower() == "nan"
    stamp, day = db.execute(text("SELECT CAST('2026-11-23 19:22:36.98412+00' AS timestamptz), "
                                 "CAST('2026-11-23' AS date)")).one()
    assert stamp == datetime(2026, 11, 23, 19, 22, 36, 984120, tzinfo=timezone.utc)
    assert day == date(2026, 11, 23)
