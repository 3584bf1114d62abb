"""Session 23 (deployment audit): a push delivery stops trying a user's subscriptions once PUSH_SECONDS are spent, so
that one delivery stays within notify_delivery.DELIVERY_SECONDS and its function's timeout. Twenty subscriptions
whose push service took 10 s each made one delivery 200 s long, past the worker's and the drain's timeout."""
from __future__ import annotations

from chalicelib.core import notify_delivery, timeutil
from chalicelib.core.notify import notify
from chalicelib.core.notify_models import NotificationPreference
from chalicelib.providers.push.sandbox import SandboxPush
from tests.factories import make_user

from .factories import FakeContext, deliveries, make_subscription


class Clock:
    now = 1000.0

    def __call__(self):
        return self.now


def test_a_push_to_many_slow_subscriptions_stops_at_its_budget(db, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(timeutil, "clock", clock)
    tried = []

    def slow_send(self, *, subscription, payload, ttl=86400):
        tried.append(subscription["endpoint"])
        clock.now += 10.0  # the push service's 10 s timeout, each time

    monkeypatch.setattr(SandboxPush, "send", slow_send)
    user = make_user(db)
    for n in range(20):
        make_subscription(db, user, endpoint=f"https://push.example.test/send/{n:02d}")
    db.add(NotificationPreference(user_id=user.id, notification_type="mention", channel_in_app=True,
                                  channel_email=False, channel_chat=False, channel_push=True))
    db.flush()
    ctx = FakeContext(db)
    start = clock.now
    notification = notify(ctx, user_id=user.id, type="mention", title="Hello")
    ctx.commit()  # delivered in process after commit
    (row,) = deliveries(db, notification_id=notification.id)
    assert len(tried) == 3  # started at 0, 10 and 20 s; at 30 s the budget is spent
    assert clock.now - start <= notify_delivery.PUSH_SECONDS + 10 <= notify_delivery.DELIVERY_SECONDS
    assert row.status == "sent"  # to the three it reached
