"""The timesheets area's leaf module: the scope clause `visible`, the load-or-404 helper `load_entry`, the
entry read query and record builder. service.py imports it, never the reverse."""
from __future__ import annotations

from functools import cache

from sqlalchemy import select
from sqlalchemy.orm import aliased

from chalicelib.core import scoping
from chalicelib.core.models import User
from chalicelib.core.query import record_rows, visible_row

from .models import TimeEntry

FIELDS = ("id", "user_id", "date", "hours", "task_id", "project_id", "budget_id", "line_item_id", "billable",
          "status", "description", "submitted_at", "approved_by", "approved_at", "rejected_by", "rejected_at",
          "rejection_reason", "created_by", "updated_by", "created_at", "updated_at")


def visible(principal):
    """WHERE clause of the entries the principal may see (None: all): employees and leads their own,
    managers their team's (`core.scoping.team_user_ids`), heads and executives all."""
    if scoping.sees_all(principal):
        return None
    if scoping.is_manager(principal):
        return TimeEntry.user_id.in_(scoping.team_user_ids(principal))
    return TimeEntry.user_id == principal.id


ENTRY_FLAGS = ("billable",)


@cache
def entry_select():
    """Entries as records: FIELDS with their owner's and approver's names (user_name, approver_name), one
    statement whatever the number of rows, read with core.query.record_rows / record_page and ENTRY_FLAGS.
    Built once per process (statements are immutable: `.where()` answers a copy)."""
    owner, approver = aliased(User), aliased(User)
    return (
        select(*(getattr(TimeEntry, name) for name in FIELDS), owner.name.label("user_name"),
               approver.name.label("approver_name"))
        .outerjoin(owner, owner.id == TimeEntry.user_id)
        .outerjoin(approver, approver.id == TimeEntry.approved_by)
    )


def list_order(stmt):
    """Newest date first, then newest created."""
    return stmt.order_by(TimeEntry.date.desc(), TimeEntry.created_at.desc(), TimeEntry.id)


def load_entry(ctx, entry_id: str) -> TimeEntry:
    """The entry if it exists and the caller may see it; 404 otherwise (one query)."""
    return visible_row(ctx.db, TimeEntry, entry_id, visible(ctx.principal), "Time entry")


def entry_row(db, entry_id: str) -> dict:
    """The record of an entry already loaded (or just written)."""
    return record_rows(db, entry_select().where(TimeEntry.id == entry_id), ENTRY_FLAGS)[0]
