"""Names, pictures, labels and colours for the rows a read answers: one statement per request.

A read selects its own rows first (no joins to users or config items: a statement with many outer
joins costs Postgres more to plan than to run, and pg8000's unnamed statements are planned on every
request), then asks `names()` once for every user and config item those rows reference, and merges
in Python. Counts come the same way: one grouped statement over the page's ids.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import String, bindparam, cast, func, literal_column, null, select, union_all

from .models import ConfigList, ConfigListItem, User
from .query import Read, ids_param, ids_value, template

_NO_USER = {"name": None, "picture": None}
_NO_ITEM = {"label": None, "color": None, "value": None}


@dataclass
class Names:
    """`user(id)` -> {name, picture}; `item(id)` -> {label, color, value}; None fields for a missing id."""

    users: dict = field(default_factory=dict)
    items: dict = field(default_factory=dict)

    def user(self, user_id) -> dict:
        return self.users.get(user_id, _NO_USER) if user_id else _NO_USER

    def item(self, item_id) -> dict:
        return self.items.get(item_id, _NO_ITEM) if item_id else _NO_ITEM

    @classmethod
    def of(cls, rows) -> "Names":
        """From the rows of `names_select`: tuples, or records `{kind, id, a, b, c}`."""
        found = cls()
        for row in rows:
            kind, row_id, a, b, c = (row["kind"], row["id"], row["a"], row["b"], row["c"]) if isinstance(row, dict) else row
            if kind == "u":
                found.users[row_id] = {"name": a, "picture": b}
            else:
                found.items[row_id] = {"label": a, "color": b, "value": c}
        return found


def list_items_among(db, key: str, ids) -> set[str]:
    """Which of these ids are items of config list `key` (one statement; none asked, none run)."""
    wanted = {item_id for item_id in ids if item_id}
    if not wanted:
        return set()
    return set(db.scalars(select(ConfigListItem.id).join(ConfigList, ConfigList.id == ConfigListItem.list_id)
                          .where(ConfigList.key == key, ConfigListItem.id.in_(wanted))))


def among(db, column, ids):
    """`column IN ids` for a page's ids. On Postgres the ids travel as one text parameter, split there
    (`column IN (SELECT unnest(string_to_array(:ids, ',')))`): planned in the same time for 1 or 500 ids,
    where a list of 500 parameters costs the planner about a millisecond, and sent as one string (pg8000
    escapes an array parameter character by character in Python). Elsewhere, or when an id holds a comma,
    a plain IN list."""
    ids = sorted({value for value in ids if value})
    if db.get_bind().dialect.name == "postgresql" and not any("," in value for value in ids):
        joined = bindparam("ids", ",".join(ids), type_=String, unique=True)
        return column.in_(select(func.unnest(func.string_to_array(joined, ","))))
    return column.in_(ids)


@template
def _ids_template(build, name: str, postgres: bool):
    return build(lambda column: ids_param(column, name, postgres))


def ids_read(db, build, name: str, ids) -> Read | None:
    """The read `build(ids_in)` answers for these ids, `ids_in(column)` being `column IN (the ids)`: a template
    built once per process (core.query.template) whose parameter `name` carries the ids, or None when there
    are none. `build` is a module-level function (the template's key). An id holding a comma (no such id is
    made here) gets a statement of its own through `among`."""
    postgres = db.get_bind().dialect.name == "postgresql"
    value = ids_value(ids, postgres)
    if value is None:
        return Read(build(lambda column: among(db, column, ids)))
    return Read(_ids_template(build, name, postgres), {name: value}) if value else None


def _names_parts(user_where, item_where):
    parts = []
    if user_where is not None:
        parts.append(select(literal_column("'u'").label("kind"), User.id.label("id"), User.name.label("a"),
                            User.picture.label("b"), cast(null(), String).label("c")).where(user_where))
    if item_where is not None:
        parts.append(select(literal_column("'i'").label("kind"), ConfigListItem.id.label("id"),
                            ConfigListItem.label.label("a"), ConfigListItem.color.label("b"),
                            ConfigListItem.value.label("c")).where(item_where))
    return parts[0] if len(parts) == 1 else union_all(*parts)


@template
def _names_template(postgres: bool, users: bool, items: bool):
    return _names_parts(ids_param(User.id, "lookup_user_ids", postgres) if users else None,
                        ids_param(ConfigListItem.id, "lookup_item_ids", postgres) if items else None)


def names_select(db, user_ids=(), item_ids=()) -> Read | None:
    """The read `names()` runs (rows kind 'u'/'i', id, a, b, c; built once per process), or None when there
    is nothing to look up: for a read that sends it with others in one round trip (core.query.record_sets),
    then `Names.of`."""
    postgres = db.get_bind().dialect.name == "postgresql"
    users, items = ids_value(user_ids, postgres), ids_value(item_ids, postgres)
    if users is None or items is None:  # an id with a comma: a statement of its own (among's IN list)
        return Read(_names_parts(among(db, User.id, user_ids) if any(user_ids) else None,
                                 among(db, ConfigListItem.id, item_ids) if any(item_ids) else None))
    if not users and not items:
        return None
    params = {}
    if users:
        params["lookup_user_ids"] = users
    if items:
        params["lookup_item_ids"] = items
    return Read(_names_template(postgres, bool(users), bool(items)), params)


def names(db, user_ids=(), item_ids=()) -> Names:
    """The users and config items with these ids (None and repeats ignored): one statement, none when
    there is nothing to look up."""
    read = names_select(db, user_ids, item_ids)
    return Names() if read is None else Names.of(db.execute(read.stmt, read.params).all())
