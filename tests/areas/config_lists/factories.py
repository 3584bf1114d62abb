"""Factories for config lists (plain functions that add, flush and return)."""
from __future__ import annotations

import itertools

from chalicelib.core.models import ConfigList, ConfigListItem
from tests.factories import add_row

_seq = itertools.count(1)


def make_list(db, **overrides) -> ConfigList:
    n = next(_seq)
    return add_row(db, ConfigList, {"key": f"test_list_{n}", "name": f"Test list {n}", "is_system": False}, overrides)


def make_item(db, config_list: ConfigList, **overrides) -> ConfigListItem:
    n = next(_seq)
    values = {"label": f"Item {n}", "value": f"item_{n}", "position": 99, "is_default": False, "is_system": False}
    return add_row(db, ConfigListItem, values, overrides, list_id=config_list.id)
