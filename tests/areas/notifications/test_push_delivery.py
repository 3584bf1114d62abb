"""Web push delivery through the live adapter (`responses`, no network): what a failed DNS lookup, a long notice
and a push service's 413 do to the delivery and to the subscription.

RFC 8030 (https://www.rfc-editor.org/rfc/rfc8030): section 7.3, an expired subscription is signalled by 404 (push
services use 410 too); section 7.2, "Push services MUST NOT return a 413 status code in responses to an entity body
that is 4096 bytes or less in size". RFC 8291 section 4: "at most 3993 octets of plaintext" in that body."""
from __future__ import annotations

import json
import socket

import pytest
import responses
from sqlalchemy import select

from chalicelib.core import netguard
from chalicelib.core.notify import notify
from chalicelib.core.notify_delivery import MAX_ATTEMPTS, Skip, drain_pending
from chalicelib.core.notify_models import NotificationDelivery, NotificationPreference, PushSubscription
from chalicelib.providers.push.base import MAX_PAYLOAD_BYTES, encode_payload
from tests.factories import make_user
from tests.providers.test_webpush_live import _subscriber, decrypt

from .factories import FakeContext, deliveries, make_subscription, vapid_keys

ENDPOINT = "https://push.example.test/send/sub-1"


@pytest.fixture
def vapid(set_env):
    public, private = vapid_keys()
    set_env(PUSH_MODE="live", VAPID_PUBLIC_KEY=public, VAPID_PRIVATE_KEY=private, VAPID_SUBJECT="mailto:ops@agency.test")
    with responses.RequestsMock() as mock:
        yield mock


def _subscribed(db, endpoint=ENDPOINT):
    """A user with one subscription whose keys decrypt what is sent to it, and push as their only channel."""
    user = make_user(db)
    info, key, auth = _subscriber()
    make_subscription(db, user, endpoint=endpoint, p256dh=info["keys"]["p256dh"], auth=info["keys"]["auth"])
    db.add(NotificationPreference(user_id=user.id, notification_type="mention", channel_in_app=True,
                                  channel_email=False, channel_chat=False, channel_push=True))
    db.flush()
    return user, key, auth


def _notify(db, user, **fields) -> NotificationDelivery:
    ctx = FakeContext(db)
    notification = notify(ctx, user_id=user.id, type="mention", title=fields.pop("title", "Hello"), **fields)
    ctx.commit()
    (row,) = deliveries(db, notification_id=notification.id)
    return row


def _subscriptions(db, user) -> list[str]:
    db.expire_all()
    return list(db.scalars(select(PushSubscription.endpoint).where(PushSubscription.user_id == user.id)))


# --- task 1: a DNS hiccup must not unsubscribe anyone ---------------------------------------------------------

def test_a_failed_dns_lookup_keeps_the_subscription_and_the_drain_sends_later(db, vapid, monkeypatch):
    """getaddrinfo's temporary failure (EAI_AGAIN) made netguard refuse the endpoint, which the adapter answered as
    a gone subscription: the delivery was `skipped` and the subscription deleted. Now it is `failed` (a 502), the
    subscription stays, and the drain's retry sends the message once the name resolves again."""
    user, _key, _auth = _subscribed(db)

    def no_dns(host):
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    with monkeypatch.context() as patch:
        patch.setattr(netguard, "resolve_host", no_dns)
        row = _notify(db, user)
    assert (row.status, row.attempts) == ("failed", 1)
    assert "could not be looked up" in row.error
    assert _subscriptions(db, user) == [ENDPOINT] and len(vapid.calls) == 0

    vapid.post(ENDPOINT, status=201)
    counts = drain_pending()
    db.expire_all()
    assert counts["sent"] == 1 and db.get(NotificationDelivery, row.id).status == "sent"
    assert _subscriptions(db, user) == [ENDPOINT] and len(vapid.calls) == 1


def test_an_endpoint_resolving_to_a_refused_address_is_still_gone(db, vapid, _no_dns):
    user, _key, _auth = _subscribed(db, endpoint="https://push.rebind.test/send/1")
    _no_dns["push.rebind.test"] = ["10.0.0.7"]
    row = _notify(db, user)
    assert row.status == "skipped" and "gone" in row.error
    assert _subscriptions(db, user) == [] and len(vapid.calls) == 0


# --- task 2: the encrypted message within 4096 octets -----------------------------------------------------------

@pytest.mark.parametrize("title, body", [
    ("議" * 200, "会議の議事録を確認してください。" * 80),   # 3 octets a character in UTF-8, 6 as \uXXXX
    ("\U0001F680" * 200, "\U0001F4C5" * 1000),                  # 4 octets in UTF-8, 12 as escapes
])
def test_a_long_notice_in_a_non_latin_script_is_shortened_to_fit_and_delivered(db, vapid, title, body):
    """The title and body were cut at 200 and 1000 characters, not octets, and sent as \\uXXXX escapes: about 7.4 KB
    of JSON for Japanese, 14.5 KB for emoji, refused (413) by the push service on every attempt. Now the body is
    shortened (ending with an ellipsis) until the message is at most MAX_PAYLOAD_BYTES octets of UTF-8; the
    encrypted body is within the 4096 octets every push service accepts."""
    user, key, auth = _subscribed(db)
    vapid.post(ENDPOINT, status=201)
    row = _notify(db, user, title=title, body=body, action_url="/meetings/m-1")
    assert row.status == "sent"
    (call,) = vapid.calls
    assert len(call.request.body) <= 4096
    sent = json.loads(decrypt(call.request.body, key, auth))
    assert sent["url"] == "/meetings/m-1" and sent["tag"] == "mention"
    assert sent["body"].endswith("\u2026") and body.startswith(sent["body"][:-1])
    assert sent["title"] == title or (sent["title"].endswith("\u2026") and title.startswith(sent["title"][:-1]))
    assert MAX_PAYLOAD_BYTES - 10 < len(encode_payload(sent)) <= MAX_PAYLOAD_BYTES  # as long as fits, no shorter


@pytest.mark.parametrize("title, body", [
    ("議" * 200, "会" * 1000),                      # CJK: 3 octets a character
    ("\U0001F680" * 200, "\U0001F4C5" * 1000),      # emoji: 4 octets, 12 as escapes (surrogate pairs)
    ("T" * 300, "\u00e9" * 5000),                   # Latin with accents: 2 octets
    ('"\\' * 150, "\x01" * 1000),                   # characters JSON escapes (2 and 6 octets)
])
def test_push_message_fits_pywebpushs_encryption_within_4096_octets(title, body):
    """Measured with pywebpush's own encode (aes128gcm, one 4096-octet record), as the audit did."""
    from pywebpush import WebPusher

    from chalicelib.core.notify_delivery import push_message

    info, key, auth = _subscriber()
    message = push_message({"type": "mention", "title": title, "body": body, "action_url": "/tasks/t-1" * 20,
                            "icon": "bell", "notification_id": "n" * 36, "resource_type": "task",
                            "resource_id": "r" * 36})
    data = encode_payload(message)
    assert len(data) <= MAX_PAYLOAD_BYTES
    encrypted = WebPusher(info).encode(data, "aes128gcm")["body"]
    assert len(encrypted) <= 4096
    assert json.loads(decrypt(encrypted, key, auth)) == message
    assert len(message["title"]) <= 200 and message["body"].endswith("\u2026")
    assert message["url"] == "/tasks/t-1" * 20 and message["resource_id"] == "r" * 36  # the other fields whole


def test_the_title_is_shortened_too_when_the_body_alone_is_not_enough():
    from chalicelib.core.notify_delivery import push_message

    message = push_message({"type": "mention", "title": "\U0001F680" * 200, "body": "\U0001F4C5" * 1000,
                            "action_url": "/x/" + "a" * 1100})  # sent twice: `action_url` and `url`
    assert message["body"] == "\u2026" and message["title"].endswith("\u2026") and len(message["title"]) < 200
    assert MAX_PAYLOAD_BYTES - 10 < len(encode_payload(message)) <= MAX_PAYLOAD_BYTES


def test_a_message_whose_other_fields_are_too_large_is_a_skip():
    from chalicelib.core.notify_delivery import push_message

    with pytest.raises(Skip, match="larger than"):
        push_message({"type": "mention", "title": "Hi", "body": "there", "action_url": "/x/" + "a" * 4000})


def test_a_413_is_skipped_never_retried_and_the_subscription_kept(db, vapid):
    """A push service that still refuses the message's size (413) will refuse it on every attempt: the delivery is
    `skipped` (a Skip), not `failed` for the drain to send four more times; the subscription is not gone."""
    user, _key, _auth = _subscribed(db)
    vapid.post(ENDPOINT, status=413, json={"code": 413, "errno": 104, "error": "Payload Too Large"})
    row = _notify(db, user)
    assert (row.status, row.attempts) == ("skipped", 1) and "HTTP 413" in row.error
    assert _subscriptions(db, user) == [ENDPOINT]
    assert drain_pending()["processed"] == 0 and len(vapid.calls) == 1
    assert MAX_ATTEMPTS > 1  # it would have been retried as a failure


def test_a_413_on_one_subscription_does_not_hold_back_the_others(db, vapid):
    user, _key, _auth = _subscribed(db)
    other = "https://push.example.test/send/sub-2"
    info, _, _ = _subscriber()
    make_subscription(db, user, endpoint=other, p256dh=info["keys"]["p256dh"], auth=info["keys"]["auth"])
    vapid.post(ENDPOINT, status=413)
    vapid.post(other, status=201)
    row = _notify(db, user)
    assert row.status == "sent" and row.external_id == "1 of 2 subscriptions"
    assert sorted(_subscriptions(db, user)) == sorted([ENDPOINT, other])
