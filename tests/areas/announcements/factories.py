"""Factories for the announcements area: plain functions that add, flush and return."""
from __future__ import annotations

import itertools

from chalicelib.areas.announcements.models import Announcement

_seq = itertools.count(1)


def make_announcement(db, **overrides) -> Announcement:
    n = next(_seq)
    values = {"title": f"Announcement {n}", "content": f"Body {n}", "category": "company"}
    values.update(overrides)
    announcement = Announcement(**values)
    db.add(announcement)
    db.flush()
    return announcement
