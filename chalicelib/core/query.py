"""Query pieces every area's lists share."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, func, or_, select

from chalicelib.core.errors import not_found

# The most rows a list answers (decisions.md section 4); a paged list answers `total` beside them.
LIST_LIMIT = 500


def contains_text(term: str, *columns):
    """Case-insensitive substring match of `term` in any of `columns`; `%` and `_` match literally. True or
    false, never NULL; the bare column is matched (no function around it), so a pg_trgm index on it serves."""
    def match(column):
        found = column.icontains(term, autoescape=True)
        return found if getattr(column, "nullable", True) is False else and_(column.is_not(None), found)

    return or_(*(match(column) for column in columns))


def in_scope(stmt, scope):
    """`stmt` limited to `scope`, an area's scope clause (None: the caller sees everything)."""
    return stmt if scope is None else stmt.where(scope)


def visible_exists(db, model, row_id: str, scope) -> bool:
    """Whether the `model` row with this id exists inside `scope` (one query): for another area's
    reference checks, where out of scope answers like missing."""
    return db.scalar(in_scope(select(model.id).where(model.id == row_id), scope)) is not None


def visible_row(db, model, row_id: str, scope, what: str):
    """The `model` row with this id if it is inside `scope` (a WHERE clause, or None for no limit).

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

    def body(self, key: str) -> dict:
        """The response body `{key: [...], total, limit, offset}` (built in api.py)."""
        return {key: self.items, "total": self.total, "limit": self.limit, "offset": self.offset}


def paginate(db, stmt, query, record=lambda row: row) -> Page:
    """`stmt` (ordered) cut to the query's `limit` and `offset` (core.schemas.PageQuery), with the total:
    one statement when the first page holds every row, two otherwise (never one per row)."""
    rows = db.execute(stmt.limit(query.limit).offset(query.offset)).all()
    if query.offset == 0 and len(rows) < query.limit:
        total = len(rows)
    else:
        total = db.scalar(select(func.count()).select_from(stmt.order_by(None).subquery()))
    return Page([record(row) for row in rows], total, query.limit, query.offset)
