"""Portal notifications: keyed by the portal user and company, paging, read, read all, preferences."""
from datetime import datetime, timedelta, timezone

from chalicelib.areas.portal.models import PortalNotification
from tests.areas.portal.conftest import make_client


def _note(db, company, user, index, **kw):
    values = {"is_read": False, "archived": False, **kw}
    n = PortalNotification(company_id=company.id, portal_user_id=user, type="portal_qbr_presented",
                           title=f"N{index}", created_at=datetime(2030, 1, 1, tzinfo=timezone.utc)
                           + timedelta(minutes=index), **values)
    db.add(n)
    db.flush()
    return n


def test_list_paging_filters_and_scope(portal, db):
    mine, other = make_client(db), make_client(db)
    for index in range(120):
        _note(db, mine, "pu-1", index)
    archived = _note(db, mine, "pu-1", 500, archived=True)
    _note(db, mine, "pu-2", 1000)
    theirs = _note(db, other, "pu-1", 1001)
    assert portal.get("/notifications", mine, user=None).status == 400
    page = portal.get("/notifications", mine).json
    assert page["limit"] == 50 and page["offset"] == 0 and len(page["notifications"]) == 50
    assert page["notifications"][0]["title"] == "N119"
    assert len(portal.get("/notifications?limit=100&offset=100", mine).json["notifications"]) == 20
    assert portal.get("/notifications?limit=101", mine).status == 400
    assert portal.get("/notifications?filter=nope", mine).status == 400
    assert [n["id"] for n in portal.get("/notifications?filter=archived", mine).json["notifications"]] == [archived.id]
    assert portal.get("/notifications/unread-count", mine).json == {"unread_count": 120}
    first = page["notifications"][0]["id"]
    assert portal.post(f"/notifications/{first}/read", mine).json == {"ok": True}
    assert portal.get("/notifications/unread-count", mine).json == {"unread_count": 119}
    assert len(portal.get("/notifications?filter=unread&limit=100", mine).json["notifications"]) == 100
    assert portal.post(f"/notifications/{theirs.id}/read", mine).status == 404
    assert portal.post(f"/notifications/{first}/read", mine, user="pu-2").status == 404
    assert portal.post("/notifications/read-all", mine).json == {"ok": True}
    assert portal.get("/notifications/unread-count", mine).json == {"unread_count": 0}
    assert portal.get("/notifications/unread-count", mine, user="pu-2").json == {"unread_count": 1}
    assert portal.get("/notifications/unread-count", other).json == {"unread_count": 1}


def test_preferences(portal, db):
    mine = make_client(db)
    prefs = portal.get("/notifications/preferences", mine).json["preferences"]
    assert prefs and all(set(p) == {"notification_type", "label", "description", "channel_in_app", "channel_email",
                                    "is_customized"} for p in prefs)
    assert all(p["notification_type"].startswith("portal_") for p in prefs)
    saved = portal.put("/notifications/preferences", mine, json={"preferences": [
        {"notification_type": "portal_note_reply", "channel_in_app": False, "channel_email": True}]})
    assert saved.json == {"ok": True}
    reply = next(p for p in portal.get("/notifications/preferences", mine).json["preferences"]
                 if p["notification_type"] == "portal_note_reply")
    assert reply == {**reply, "channel_in_app": 0, "channel_email": 1, "is_customized": True}
    other_user = portal.get("/notifications/preferences", mine, user="pu-2").json["preferences"]
    assert not any(p["is_customized"] for p in other_user)
    assert portal.put("/notifications/preferences", mine, json={"preferences": [
        {"notification_type": "task_assigned"}]}).status == 400
