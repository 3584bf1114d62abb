"""The config lists area's leaf module: the scope clause `visible` (every holder of config-lists:view sees
every list), the load-or-404 helpers `load_config_list` and `load_config_list_item`, the record builders
and the read queries. service.py imports it, never the reverse."""
from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from chalicelib.core.errors import not_found
from chalicelib.core.models import ConfigList, ConfigListItem
from chalicelib.core.query import LIST_LIMIT, visible_row
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


def list_record(config_list: ConfigList, items: list[ConfigListItem]) -> dict:
    record = row_dict(config_list, LIST_FIELDS, flags=("is_system",))
    record["items"] = [item_record(item) for item in sorted(items, key=lambda i: (i.position, i.label, i.id))]
    return record


def lists_with_items(db, key: str | None = None) -> list[ConfigList]:
    """Every list (or the one with `key`) with its items loaded: two statements whatever the row count."""
    stmt = select(ConfigList).options(selectinload(ConfigList.items)).order_by(ConfigList.key).limit(LIST_LIMIT)
    if key:
        stmt = stmt.where(ConfigList.key == key)
    return list(db.scalars(stmt))


def list_items(db, list_id: str) -> list[ConfigListItem]:
    return list(db.scalars(select(ConfigListItem).where(ConfigListItem.list_id == list_id).order_by(*ITEM_ORDER)
                           .limit(ITEM_LIMIT)))


def item_count(db, list_id: str) -> int:
    return db.scalar(select(func.count()).select_from(ConfigListItem).where(ConfigListItem.list_id == list_id)) or 0
