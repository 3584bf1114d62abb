"""A user who turns a channel off after a notice was queued is not sent it on that channel (session 22's
notifications audit): the channels were chosen when the notice was made, and the drain's retries and a backed-up
queue still e-mailed them. The sender reads the user's preference again when it delivers."""
from __future__ import annotations

from datetime import timedelta

from chalicelib.core import notify_delivery
from chalicelib.core.notify import notify
from chalicelib.core.notify_models import NotificationPreference
from tests.areas.notifications.factories import FakeContext, deliveries, outbox
from tests.factories import make_user


def _email_on_for_mentions(db):
    user = make_user(db)
    db.add(NotificationPreference(user_id=user.id, notification_type="mention", channel_in_app=True,
                                  channel_email=True, channel_chat=False, channel_push=False))
    db.flush()
    return user


def _email_off(api, user):
    answer = api.put("/api/notifications/preferences", as_=user, json={"preferences": [
        {"notification_type": "mention", "channel_email": False}]})
    assert answer.status == 200, answer


def test_the_drain_does_not_email_a_user_who_turned_email_off_since(db, api):
    user = _email_on_for_mentions(db)
    made = notify(FakeContext(db), user_id=user.id, type="mention", title="You were mentioned in a note")
    [delivery] = deliveries(db, notification_id=made.id)
    assert delivery.status == "pending"  # its queue message lost: the drain retries it
    _email_off(api, user)
    notify_delivery.drain_pending(pending_older_than=timedelta(0))
    assert [m for m in outbox(db, "mail") if m.target == user.email] == []
    db.expire_all()
    assert delivery.status == "skipped" and "turned email off" in delivery.error


def test_the_queue_worker_does_not_email_a_user_who_turned_email_off_since(db, api):
    user = _email_on_for_mentions(db)
    ctx = FakeContext(db)
    notify(ctx, user_id=user.id, type="mention", title="Queued, then opted out")
    _email_off(api, user)
    ctx.commit()  # the queue's message is delivered now, after the change
    assert [m for m in outbox(db, "mail") if m.target == user.email] == []


def test_a_user_who_keeps_email_on_is_still_emailed(db):
    user = _email_on_for_mentions(db)
    ctx = FakeContext(db)
    notify(ctx, user_id=user.id, type="mention", title="Still wanted")
    ctx.commit()
    assert [m.subject for m in outbox(db, "mail") if m.target == user.email] == ["Still wanted"]
