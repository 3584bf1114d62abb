"""core.notify tells nobody who was deactivated (notifications audit): whichever area calls it, a deactivated
user gets neither the in-app record nor a delivery, and is not counted as notified."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from chalicelib.core.notify_models import NotificationDelivery
from tests.areas.leave.factories import make_leave
from tests.factories import make_squad, make_user


def _told(db, user):
    db.expire_all()
    return (db.scalars(select(Notification.type).where(Notification.user_id == user.id)).all(),
            db.scalars(select(NotificationDelivery.channel).where(NotificationDelivery.user_id == user.id)).all())


def test_a_deactivated_requester_is_not_told_their_leave_was_rejected(api, db):
    manager = make_user(db, access_level="manager")
    squad = make_squad(db, manager_id=manager.id)
    requester = make_user(db, squad_id=squad.id)
    still_here = make_user(db, squad_id=squad.id)
    gone = make_leave(db, requester)
    kept = make_leave(db, still_here)
    requester.is_active = False
    db.flush()
    answer = api.post(f"/api/leave/requests/{gone.id}/reject", as_=manager, json={"reason": "Release week"})
    assert answer.status == 200, answer
    assert _told(db, requester) == ([], [])
    # an active requester still is (leave_rejected: in-app and its default channels)
    assert api.post(f"/api/leave/requests/{kept.id}/reject", as_=manager, json={"reason": "Release week"}).status == 200
    types, channels = _told(db, still_here)
    assert types == ["leave_rejected"] and channels
