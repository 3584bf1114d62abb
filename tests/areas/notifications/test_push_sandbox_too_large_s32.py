"""Session 32: the sandbox push service answers a message too large as a push service does (RFC 8030 section 7.2:
413; RFC 8291 section 4: at most 3993 octets of plaintext in one message), and a subscription whose endpoint holds
`/too-large/` always does, so a test can meet the live adapter's MessageTooLarge (it took any message: the
delivery's skip of such a subscription never ran against the sandbox, the default)."""
from __future__ import annotations

import pytest

from chalicelib.core.notify_delivery import drain_pending
from chalicelib.providers.push.base import MessageTooLarge
from chalicelib.providers.push.sandbox import SandboxPush
from tests.areas.notifications.test_push_delivery import _notify, _subscribed, _subscriptions


def test_a_message_past_the_plaintext_bound_is_a_413():
    push = SandboxPush(public_key="k")
    with pytest.raises(MessageTooLarge, match="HTTP 413"):
        push.send(subscription={"endpoint": "https://push.sandbox.test/a"}, payload={"body": "x" * 4000})
    with pytest.raises(MessageTooLarge, match="HTTP 413"):
        push.send(subscription={"endpoint": "https://push.sandbox.test/too-large/a"}, payload={"title": "Hello"})


def test_a_delivery_to_a_subscription_the_service_finds_too_large_is_skipped_and_kept(db):
    endpoint = "https://push.sandbox.test/too-large/sub-1"
    user, _, _ = _subscribed(db, endpoint=endpoint)
    row = _notify(db, user)
    drain_pending()
    db.expire_all()
    db.refresh(row)
    assert row.status == "skipped" and "HTTP 413" in (row.error or ""), (row.status, row.error)
    assert _subscriptions(db, user) == [endpoint]  # a 413 is this message's, not the subscription's end
