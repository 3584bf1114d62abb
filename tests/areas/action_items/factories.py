"""Factories for the action items area: plain functions that add, flush and return."""
from __future__ import annotations

import itertools

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.areas.action_items.queries import urgency_for
from tests.factories import add_row

_seq = itertools.count(1)


def make_action_item(db, **overrides) -> ActionItem:
    values = {"title": f"Action {next(_seq)}", "source_module": "manual", "is_completed": False}
    values.update(overrides)
    values.setdefault("urgency", urgency_for(values.get("due_date")))
    return add_row(db, ActionItem, values, {})
