"""The generic history log: record, diff, entries (newest first, actor name joined, one query)."""
from datetime import datetime, timedelta, timezone

from chalicelib.core import history
from chalicelib.core.models import HistoryEntry
from tests.factories import make_user
from chalicelib.core.schemas import PageQuery


def test_diff_lists_changed_fields_only():
    before = {"name": "A", "status": "todo", "due": None}
    after = {"name": "A", "status": "done", "due": "2026-01-01"}
    assert history.diff(before, after) == {"status": {"from": "todo", "to": "done"},
                                           "due": {"from": None, "to": "2026-01-01"}}
    assert history.diff(before, dict(before)) == {}


def test_record_and_entries(db, count_queries):
    actor = make_user(db, name="Actor Name")
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    first = history.record(db, entity_type="task", entity_id="t-1", action="created", actor_id=actor.id,
                           changes={"title": "New"})
    first.created_at = start
    second = history.record(db, entity_type="task", entity_id="t-1", action="status_changed", actor_id=actor.id,
                            changes={"status": {"from": "todo", "to": "done"}})
    second.created_at = start + timedelta(minutes=5)
    system = history.record(db, entity_type="task", entity_id="t-1", action="expired", actor_id=None)
    system.created_at = start + timedelta(minutes=10)
    history.record(db, entity_type="task", entity_id="t-2", action="created", actor_id=actor.id)
    history.record(db, entity_type="project", entity_id="t-1", action="created", actor_id=actor.id)
    db.flush()

    with count_queries() as counter:
        entries = history.entries(db, entity_type="task", entity_id="t-1", query=PageQuery()).items
    assert counter.count == 1
    assert [e["action"] for e in entries] == ["expired", "status_changed", "created"]
    assert entries[1] == {
        "id": second.id, "entity_type": "task", "entity_id": "t-1", "action": "status_changed",
        "actor_id": actor.id, "actor_name": "Actor Name", "changes": {"status": {"from": "todo", "to": "done"}},
        "created_at": "2026-01-01T00:05:00Z",
    }
    assert entries[0]["actor_id"] is None and entries[0]["actor_name"] is None and entries[0]["changes"] is None
    cut = history.entries(db, entity_type="task", entity_id="t-1", query=PageQuery(limit=2))
    assert len(cut.items) == 2 and cut.total == 3  # a cut page says how many there are


def test_changes_round_trip_as_json(db):
    entry = history.record(db, entity_type="budget", entity_id="b-1", action="updated", actor_id=None,
                           changes={"amount": {"from": 1.5, "to": 2}, "tags": ["a", "b"], "nested": {"k": None}})
    db.flush()
    db.expire_all()
    stored = db.get(HistoryEntry, entry.id)
    assert stored.changes == {"amount": {"from": 1.5, "to": 2}, "tags": ["a", "b"], "nested": {"k": None}}
    assert stored.created_at.tzinfo is not None


def test_admin_writes_history_through_http(api, db):
    executive = make_user(db, access_level="executive", name="Exec")
    user = make_user(db, name="Before")
    api.put(f"/api/admin/users/{user.id}", as_=executive, json={"name": "After"})
    api.put(f"/api/admin/users/{user.id}/permissions", as_=executive, json={"permissions": {"insights": "view"}})
    entries = history.entries(db, entity_type="user", entity_id=user.id, query=PageQuery()).items
    assert {e["action"] for e in entries} == {"updated", "permissions_changed"}
    assert all(e["actor_name"] == "Exec" for e in entries)
    updated = next(e for e in entries if e["action"] == "updated")
    assert updated["changes"] == {"name": {"from": "Before", "to": "After"}}
