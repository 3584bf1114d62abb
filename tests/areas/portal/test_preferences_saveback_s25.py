"""Portal notification preferences sent back as read (the portal's settings page PUTs every type) write nothing:
a type stays uncustomised, so a later change of the catalogue defaults still reaches the portal user; a type
customised before keeps its row untouched (session 25, save-back audit)."""
from datetime import timedelta

from sqlalchemy import select, text

from chalicelib.areas.portal import service_notifications
from chalicelib.areas.portal.models import PortalNotificationPreference
from chalicelib.core.ids import utcnow
from tests.areas.portal.conftest import make_client

PATH = "/notifications/preferences"


def _prefs(portal, company, **kw):
    return portal.get(PATH, company, **kw).json["preferences"]


def _stored(db, company):
    db.expire_all()
    return {p.notification_type: (p.channel_in_app, p.channel_email, p.updated_at)
            for p in db.scalars(select(PortalNotificationPreference).where(
                PortalNotificationPreference.company_id == company.id))}


def test_portal_preferences_sent_back_stay_defaults(portal, db):
    mine = make_client(db)
    prefs = _prefs(portal, mine)
    assert not any(p["is_customized"] for p in prefs)
    saved = portal.put(PATH, mine, json={"preferences": prefs})
    assert saved.status == 200, saved
    again = _prefs(portal, mine)
    assert again == prefs, [p["notification_type"] for p in again if p["is_customized"]]
    assert _stored(db, mine) == {}


def test_portal_preferences_sent_back_follow_a_later_default_change(portal, db, monkeypatch):
    mine = make_client(db)
    assert portal.put(PATH, mine, json={"preferences": _prefs(portal, mine)}).status == 200
    changed = tuple((t[0], t[1], t[2], t[3], not t[4]) if t[0] == "portal_note_reply" else t
                    for t in service_notifications.PORTAL_TYPES)
    monkeypatch.setattr(service_notifications, "PORTAL_TYPES", changed)
    reply = next(p for p in _prefs(portal, mine) if p["notification_type"] == "portal_note_reply")
    assert (reply["channel_email"], reply["is_customized"]) == (1, False)


def test_portal_preferences_sent_back_keep_a_customised_row_as_it_was(portal, db):
    mine = make_client(db)
    assert portal.put(PATH, mine, json={"preferences": [
        {"notification_type": "portal_note_reply", "channel_in_app": False, "channel_email": True}]}).status == 200
    db.execute(text("UPDATE portal_notification_preferences SET updated_at = :aged "
                    "WHERE company_id = :id"), {"aged": utcnow() - timedelta(days=1), "id": mine.id})
    db.commit()
    before = _stored(db, mine)
    prefs = _prefs(portal, mine)
    saved = portal.put(PATH, mine, json={"preferences": prefs})
    assert saved.status == 200, saved
    assert _prefs(portal, mine) == prefs
    assert _stored(db, mine) == before


def test_portal_preferences_sent_back_with_one_change_write_that_one(portal, db):
    mine = make_client(db)
    prefs = _prefs(portal, mine)
    sent = [p | {"channel_email": 1} if p["notification_type"] == "portal_announcement" else p for p in prefs]
    saved = portal.put(PATH, mine, json={"preferences": sent})
    assert saved.status == 200, saved
    got = {p["notification_type"]: p for p in _prefs(portal, mine)}
    assert [t for t, p in got.items() if p["is_customized"]] == ["portal_announcement"]
    assert got["portal_announcement"]["channel_email"] == 1
    assert set(_stored(db, mine)) == {"portal_announcement"}
    # a customised type sent back to its defaults is still written (it is a change of the stored row)
    back = portal.put(PATH, mine, json={"preferences": [{"notification_type": "portal_announcement",
                                                         "channel_in_app": True, "channel_email": False}]})
    assert back.status == 200, back
    announcement = next(p for p in _prefs(portal, mine) if p["notification_type"] == "portal_announcement")
    assert (announcement["channel_in_app"], announcement["channel_email"]) == (1, 0)


def test_portal_preferences_other_user_untouched_by_a_saveback(portal, db):
    mine = make_client(db)
    assert portal.put(PATH, mine, user="pu-2", json={"preferences": [
        {"notification_type": "portal_note_reply", "channel_in_app": False, "channel_email": True}]}).status == 200
    assert portal.put(PATH, mine, json={"preferences": _prefs(portal, mine)}).status == 200
    assert not any(p["is_customized"] for p in _prefs(portal, mine))
    assert [p["notification_type"] for p in _prefs(portal, mine, user="pu-2") if p["is_customized"]] == \
        ["portal_note_reply"]
