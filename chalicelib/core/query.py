"""Query pieces every area's lists share."""
from __future__ import annotations

from sqlalchemy import func, or_, select

from chalicelib.core.errors import not_found


def contains_text(term: str, *columns):
    """Case-insensitive substring match of `term` in any of `columns`; `%` and `_` match literally."""
    return or_(*(func.coalesce(column, "").icontains(term, autoescape=True) for column in columns))


def visible_row(db, model, row_id: str, scope, what: str):
    """The `model` row with this id if it is inside `scope` (a WHERE clause, or None for no limit).

    404 `"<what> not found"` otherwise: a row out of the caller's scope looks missing. One query.
    """
    stmt = select(model).where(model.id == row_id)
    if scope is not None:
        stmt = stmt.where(scope)
    row = db.scalar(stmt)
    if row is None:
        raise not_found(what)
    return row
