"""Factories of the timesheets area."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from chalicelib.areas.timesheets.models import TimeEntry
from tests.factories import add_row


def make_entry(db, user, **overrides) -> TimeEntry:
    values = {"user_id": user.id, "date": date(2026, 3, 2), "hours": Decimal("2.5"), "billable": True,
              "status": "draft"}
    return add_row(db, TimeEntry, values, overrides)
