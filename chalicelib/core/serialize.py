"""Small helpers for turning rows into response records (flags as 0/1, ISO timestamps)."""
from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Iterable

from .timeutil import iso


def clipped(text: str, limit: int) -> str:
    """`text` when it has at most `limit` characters, else its first `limit - 1` and "\u2026": a text cut to a column
    or a message's bound, with a mark that it was cut."""
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """A provider's text as a column and a strict JSON reader take it (session 30): NUL characters dropped (Postgres
    text and jsonb refuse them: the write failed) and lone surrogates (a `\\ud800` escape in an answer's JSON, which
    json.loads keeps; the UTF-8 encoding of the write failed, and an answer carrying one is JSON a strict reader
    refuses) replaced by U+FFFD. A surrogate pair's escape is read as its one character, so every surrogate left is
    a lone one. The adapters read through providers.http.read_json, which uses it; core's deliveries use it for a
    refusal's text."""
    return _SURROGATE.sub("\ufffd", text.replace("\x00", ""))


def kept_id(value: Any, limit: int) -> str | None:
    """A provider's id of something it did (a message sent, an event made), as a column of `limit` characters keeps
    it: a non-empty string that fits and holds no NUL (Postgres refuses one), else None. The thing was done, so an
    id that cannot be kept must not fail the write that records it: that write failing left the record in its
    in-between state and a retry did it again (session 30: notification deliveries, announcement distributions,
    Twilio messages, the leave integrations)."""
    return value if isinstance(value, str) and 0 < len(value) <= limit and "\x00" not in value else None


def flag(value: Any) -> int:
    return 1 if value else 0


_PLAIN = frozenset({str, int, bool, float, type(None)})


def value_out(value: Any) -> Any:
    if type(value) in _PLAIN:  # most values: no conversion (one set lookup instead of two isinstance calls)
        return value
    if isinstance(value, (datetime, date)):
        return iso(value)
    if isinstance(value, Decimal):
        return float(value)
    return value


def row_dict(obj: Any, fields: Iterable[str], flags: Iterable[str] = ()) -> dict:
    """`{field: value}` for a mapped object, with the named flag fields as 0/1.

    A loaded column of an ORM instance is read from the instance's own dict (what the attribute descriptor
    would answer, without its per-call overhead: a 100-row list reads about 3,000 values); anything else (an
    unloaded or expired attribute, a property, a non-ORM object) through getattr."""
    flag_set = set(flags)
    loaded = getattr(obj, "__dict__", None) or {}
    out = {}
    for name in fields:
        value = loaded[name] if name in loaded else getattr(obj, name)
        out[name] = flag(value) if name in flag_set else value_out(value)
    return out


def columns(model) -> list[str]:
    return [column.key for column in model.__table__.columns]
