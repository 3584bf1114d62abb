"""Query pieces every area's lists share."""
from __future__ import annotations

from sqlalchemy import func, or_


def contains_text(term: str, *columns):
    """Case-insensitive substring match of `term` in any of `columns`; `%` and `_` match literally."""
    return or_(*(func.coalesce(column, "").icontains(term, autoescape=True) for column in columns))
