"""Small helpers for turning rows into response records (flags as 0/1, ISO timestamps)."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any, Iterable

from .timeutil import iso


def flag(value: Any) -> int:
    return 1 if value else 0


def value_out(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return iso(value)
    if isinstance(value, Decimal):
        return float(value)
    return value


def row_dict(obj: Any, fields: Iterable[str], flags: Iterable[str] = ()) -> dict:
    """`{field: value}` for a mapped object, with the named flag fields as 0/1."""
    flag_set = set(flags)
    return {name: flag(getattr(obj, name)) if name in flag_set else value_out(getattr(obj, name)) for name in fields}


def columns(model) -> list[str]:
    return [column.key for column in model.__table__.columns]
