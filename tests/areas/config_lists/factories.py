"""Factories for config lists (plain functions that add, flush and return)."""
from __future__ import annotations

import itertools

from chalicelib.core.models import ConfigList, ConfigListItem

_seq = itertools.count(1)


def make_list(db, **overrides) -> ConfigList:
    n = next(_seq)
    values = {"key": f"test_list_{n}", "name": f"Test list {n}", "is_system": False}
    values.update(overrides)
    config_list = ConfigList(**values)
    db.add(config_list)
    db.flush()
    return config_list


def make_item(db, config_list: ConfigList, **overrides) -> ConfigListItem:
    n = next(_seq)
    values = {"label": f"Item {n}", "value": f"item_{n}", "position": 99, "is_default": False, "is_system": False}
    values.update(overrides)
    item = ConfigListItem(list_id=config_list.id, **values)
    db.add(item)
    db.flush()
    return item
