"""The config lists area's leaf module: the scope clause `visible` (every holder of config-lists:view sees
every list), the load-or-404 helpers `load_config_list` and `load_config_list_item`, the record builders
and the read queries. service.py imports it, never the reverse."""
from __future__ import annotations

from sqlalchemy import bindparam, func, select

from chalicelib.core.errors import not_found
from chalicelib.core.models import ConfigList, ConfigListItem
from chalicelib.core.query import LIST_LIMIT, Read, record_sets, template, visible_row
from chalicelib.core.serialize import row_dict

LIST_FIELDS = ("id", "key", "name", "description", "is_system", "created_at")
ITEM_FIELDS = (
    "id", "list_id", "label", "value", "color", "icon", "is_default", "is_system", "position", "stage_type",
    "probability", "email_template_id", "email_trigger_active", "created_at",
)
ITEM_FLAGS = ("is_default", "is_system", "email_trigger_active")
ITEM_ORDER = (ConfigListItem.position, ConfigListItem.label, ConfigListItem.id)
# A list holds at most this many items (decisions.md section 4; the 501st create is refused), so a list
# answers them all. Lists themselves are created by migrations only (a few dozen).
ITEM_LIMIT = LIST_LIMIT


def visible(principal):
    """WHERE clause of the config lists the principal may see: None, every list."""
    return None


def load_config_list(ctx, key: str) -> ConfigList:
    """The list with this key; 404 otherwise."""
    config_list = ctx.db.scalar(select(ConfigList).where(ConfigList.key == key))
    if config_list is None:
        raise not_found("Config list")
    return config_list


def load_config_list_item(ctx, config_list: ConfigList, item_id: str) -> ConfigListItem:
    """The item of this list; 404 otherwise (an item of another list too)."""
    return visible_row(ctx.db, ConfigListItem, item_id, ConfigListItem.list_id == config_list.id, "Config list item")


def item_record(item: ConfigListItem) -> dict:
    return row_dict(item, ITEM_FIELDS, flags=ITEM_FLAGS)


@template
def _lists_select(keyed: bool):
    """The lists, ordered by key, at most LIST_LIMIT (the one whose key is `:list_key` when `keyed`)."""
    stmt = select(*(getattr(ConfigList, name) for name in LIST_FIELDS))
    if keyed:
        stmt = stmt.where(ConfigList.key == bindparam("list_key"))
    return stmt.order_by(ConfigList.key).limit(LIST_LIMIT)


@template
def _items_select(keyed: bool):
    """The items of `_lists_select`'s lists, in the order of a single list's (ITEM_ORDER, by the database's collation:
    they were sorted in Python, whose order of labels can differ from the database's)."""
    return (select(*(getattr(ConfigListItem, name) for name in ITEM_FIELDS))
            .where(ConfigListItem.list_id.in_(_lists_select(keyed).with_only_columns(ConfigList.id)))
            .order_by(*ITEM_ORDER))


def lists_with_items(db, key: str | None = None) -> list[dict]:
    """Every list (or the one with `key`) as its record, with its items ordered by position, label and id (in SQL): one
    statement whatever the row count (core.query.record_sets), records without ORM objects."""
    params = {"list_key": key} if key else {}
    sets = record_sets(db, lists=Read(_lists_select(bool(key)), params, ("is_system",)),
                       items=Read(_items_select(bool(key)), params, ITEM_FLAGS))
    by_list: dict[str, list[dict]] = {}
    for item in sets["items"]:
        by_list.setdefault(item["list_id"], []).append(item)
    return [{**record, "items": by_list.get(record["id"], [])} for record in sets["lists"]]


def list_items(db, list_id: str) -> list[ConfigListItem]:
    return list(db.scalars(select(ConfigListItem).where(ConfigListItem.list_id == list_id).order_by(*ITEM_ORDER)
                           .limit(ITEM_LIMIT)))


def item_count(db, list_id: str) -> int:
    return db.scalar(select(func.count()).select_from(ConfigListItem).where(ConfigListItem.list_id == list_id)) or 0
