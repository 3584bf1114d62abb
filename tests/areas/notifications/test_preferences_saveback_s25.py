"""Staff notification preferences sent back as read write nothing: types at their defaults stay uncustomised and
a customised type's row is not rewritten (session 25, save-back audit; this route already merged, the test keeps
it so)."""
from datetime import timedelta

from sqlalchemy import select, text

from chalicelib.core.ids import utcnow
from chalicelib.core.notify_models import NotificationPreference
from tests.factories import make_user

PATH = "/api/notifications/preferences"


def _stored(db, user):
    db.expire_all()
    return {(p.notification_type, p.channel_in_app, p.channel_email, p.channel_chat, p.channel_push, p.updated_at)
            for p in db.scalars(select(NotificationPreference).where(NotificationPreference.user_id == user.id))}


def test_staff_preferences_sent_back_write_nothing(api, db):
    user = make_user(db)
    assert api.put(PATH, as_=user, json={"preferences": [
        {"notification_type": "task_assigned", "channel_email": True}]}).status == 200
    db.execute(text("UPDATE notification_preferences SET updated_at = :aged "
                    "WHERE user_id = :id"), {"aged": utcnow() - timedelta(days=1), "id": user.id})
    db.commit()
    before = _stored(db, user)
    prefs = api.get(PATH, as_=user).json["preferences"]
    assert [p["notification_type"] for p in prefs if p["is_customized"]] == ["task_assigned"]
    saved = api.put(PATH, as_=user, json={"preferences": prefs})
    assert saved.status == 200, saved
    assert api.get(PATH, as_=user).json["preferences"] == prefs
    assert _stored(db, user) == before
