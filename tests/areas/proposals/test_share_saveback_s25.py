"""Session 25 (save-back audit): PUT /api/proposals/:id/share with the settings as stored writes nothing (no
`sharing_changed` history entry, the proposal's updated_at kept); a change records only the values that differ."""
from datetime import timedelta

from sqlalchemy import select, text

from chalicelib.core.ids import utcnow
from chalicelib.core.models import HistoryEntry
from tests.areas.proposals.factories import create


def _age(db, pid):
    db.execute(text("UPDATE proposals SET updated_at = :aged WHERE id = :id"), {"aged": utcnow() - timedelta(days=1), "id": pid})
    db.commit()


def _changes(db, pid) -> list[dict]:
    db.expire_all()
    return [e.changes for e in db.scalars(select(HistoryEntry).where(
        HistoryEntry.entity_id == pid, HistoryEntry.action == "sharing_changed").order_by(HistoryEntry.created_at))]


def _read(api, pid, user) -> dict:
    return api.get(f"/api/proposals/{pid}", as_=user).json["proposal"]


def test_enabled_sharing_sent_back_writes_nothing(api, db, exec_user):
    pid = create(api, exec_user)
    first = api.put(f"/api/proposals/{pid}/share", as_=exec_user, json={"share_enabled": True})
    assert first.status == 200, first
    _age(db, pid)
    before, entries = _read(api, pid, exec_user), _changes(db, pid)
    assert len(entries) == 1
    again = api.put(f"/api/proposals/{pid}/share", as_=exec_user,
                    json={"share_enabled": before["share_enabled"], "share_password": None})
    assert again.status == 200, again
    assert again.json["share_token"] == first.json["share_token"]
    assert (_changes(db, pid), _read(api, pid, exec_user)["updated_at"]) == (entries, before["updated_at"])


def test_disabled_sharing_sent_back_writes_nothing(api, db, exec_user):
    pid = create(api, exec_user)
    _age(db, pid)
    before = _read(api, pid, exec_user)
    again = api.put(f"/api/proposals/{pid}/share", as_=exec_user, json={"share_enabled": 0, "share_password": ""})
    assert again.status == 200, again
    assert (_changes(db, pid), _read(api, pid, exec_user)["updated_at"]) == ([], before["updated_at"])


def test_a_change_records_only_what_differs(api, db, exec_user):
    pid = create(api, exec_user)
    assert api.put(f"/api/proposals/{pid}/share", as_=exec_user, json={"share_enabled": True}).status == 200
    _age(db, pid)
    before = _read(api, pid, exec_user)
    changed = api.put(f"/api/proposals/{pid}/share", as_=exec_user,
                      json={"share_enabled": True, "share_password": "a long secret"})
    assert changed.status == 200, changed
    assert _changes(db, pid)[-1] == {"share_password": "set"}
    after = _read(api, pid, exec_user)
    assert after["share_protected"] == 1 and after["updated_at"] > before["updated_at"]
