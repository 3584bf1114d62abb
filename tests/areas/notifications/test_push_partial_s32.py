"""A push delivery that reached some of the recipient's devices and not others (session 32): it is `sent`, and what
the others answered is kept in its `error` (it was recorded as a plain success, nothing saying which devices missed
the message, or why)."""
from __future__ import annotations

from tests.providers.test_webpush_live import _subscriber

from .factories import make_subscription
from .test_push_delivery import ENDPOINT, _notify, _subscribed, _subscriptions, vapid  # noqa: F401 - the fixture


def _add(db, user, endpoint):
    info, _key, _auth = _subscriber()
    make_subscription(db, user, endpoint=endpoint, p256dh=info["keys"]["p256dh"], auth=info["keys"]["auth"])


def test_a_partly_delivered_push_keeps_what_the_other_devices_answered(db, vapid):
    user, _key, _auth = _subscribed(db)
    refused, gone = "https://push.example.test/send/sub-2", "https://push.example.test/send/sub-3"
    _add(db, user, refused)
    _add(db, user, gone)
    vapid.post(ENDPOINT, status=201)
    vapid.post(refused, status=500, body="push service down")
    vapid.post(gone, status=410)
    row = _notify(db, user)
    assert row.status == "sent" and row.external_id == "1 of 3 subscriptions"
    assert row.error is not None and "HTTP 500" in row.error and "1 push subscriptions gone (removed)" in row.error
    assert sorted(_subscriptions(db, user)) == sorted([ENDPOINT, refused])


def test_a_push_every_device_took_has_no_error(db, vapid):
    user, _key, _auth = _subscribed(db)
    other = "https://push.example.test/send/sub-2"
    _add(db, user, other)
    vapid.post(ENDPOINT, status=201)
    vapid.post(other, status=201)
    row = _notify(db, user)
    assert (row.status, row.external_id, row.error) == ("sent", "2 of 2 subscriptions", None)
