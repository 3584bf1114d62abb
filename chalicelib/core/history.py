"""The generic history log that areas write to: entity type and id, action, actor, changes, time."""

from sqlalchemy import select
from sqlalchemy.orm import Session

from .query import Page, paginate
from .schemas import IsoTimestamp, Read
from .models import HistoryEntry, User
from .timeutil import iso


def record(db: Session, *, entity_type: str, entity_id: str, action: str, actor_id: str | None,
           changes: dict | None = None) -> HistoryEntry:
    entry = HistoryEntry(entity_type=entity_type, entity_id=entity_id, action=action, actor_id=actor_id,
                         changes=changes)
    db.add(entry)
    return entry


def diff(before: dict, after: dict) -> dict:
    """`{field: {"from": old, "to": new}}` for the fields whose value changed."""
    return {key: {"from": before.get(key), "to": value} for key, value in after.items() if before.get(key) != value}


def record_update(db: Session, *, entity_type: str, entity_id: str, actor_id: str | None, before: dict,
                  after: dict) -> dict | None:
    """The history of an update: a `status_changed` entry when `status` changed, an `updated` entry with the other
    changed fields when there are any. Answers the status change (`{"from", "to"}`), or None."""
    changes = diff(before, after)
    status_change = changes.pop("status", None)
    if status_change is not None:
        record(db, entity_type=entity_type, entity_id=entity_id, action="status_changed", actor_id=actor_id,
               changes={"status": status_change})
    if changes:
        record(db, entity_type=entity_type, entity_id=entity_id, action="updated", actor_id=actor_id, changes=changes)
    return status_change


class HistoryEntryRead(Read):
    id: str
    entity_type: str
    entity_id: str
    action: str
    actor_id: str | None
    actor_name: str | None
    changes: dict | None
    created_at: IsoTimestamp


def _entry_record(row) -> dict:
    entry, actor_name = row
    return {"id": entry.id, "entity_type": entry.entity_type, "entity_id": entry.entity_id, "action": entry.action,
            "actor_id": entry.actor_id, "actor_name": actor_name, "changes": entry.changes,
            "created_at": iso(entry.created_at)}


def entries(db: Session, *, entity_type: str, entity_id: str, query) -> Page:
    """Newest first, with the actor's name joined, one page (`query`: a core.schemas.PageQuery)."""
    stmt = (
        select(HistoryEntry, User.name)
        .outerjoin(User, User.id == HistoryEntry.actor_id)
        .where(HistoryEntry.entity_type == entity_type, HistoryEntry.entity_id == entity_id)
        .order_by(HistoryEntry.created_at.desc(), HistoryEntry.id)
    )
    return paginate(db, stmt, query, _entry_record)
