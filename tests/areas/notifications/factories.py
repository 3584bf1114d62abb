"""Factories for the notifications area's records."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from chalicelib.core.notify_models import NotificationDelivery, PushSubscription, SandboxOutboxMessage
from tests.factories import add_row

# a valid P-256 public key and 16-byte auth secret (base64url), as a browser sends them
P256DH = "BEJk8wJApJtCCGWomYctKUulvEHGH1ZmSSjYurRsYRad-R6BRad5Pk1l3j1y37Q9OHCEM9Ra8x5lPSrAIF3vNho"
AUTH = "c2VjcmV0LWF1dGgtMTIzNA"


def make_notification(db, user, *, minutes_ago: int = 0, **overrides) -> Notification:
    values = {"user_id": user.id, "type": "task_assigned", "title": "A task for you", "body": "Details",
              "created_at": utcnow() - timedelta(minutes=minutes_ago)}
    return add_row(db, Notification, values, overrides)


def make_subscription(db, user, *, endpoint: str = "https://push.example.test/send/abc", **overrides) -> PushSubscription:
    values = {"user_id": user.id, "endpoint": endpoint, "p256dh": P256DH, "auth": AUTH}
    return add_row(db, PushSubscription, values, overrides)


class FakeContext:
    """What core.notify needs from a request: `.db` and `.after_commit` (callbacks run by `commit()`)."""

    def __init__(self, db) -> None:
        self.db = db
        self.callbacks = []

    def after_commit(self, callback) -> None:
        self.callbacks.append(callback)

    def commit(self) -> None:
        self.db.flush()
        callbacks, self.callbacks = self.callbacks, []
        for callback in callbacks:
            callback()


def deliveries(db, **where) -> list[NotificationDelivery]:
    db.expire_all()
    query = select(NotificationDelivery).order_by(NotificationDelivery.channel, NotificationDelivery.created_at)
    for name, value in where.items():
        query = query.where(getattr(NotificationDelivery, name) == value)
    return list(db.scalars(query))


def outbox(db, provider: str) -> list[SandboxOutboxMessage]:
    db.expire_all()
    return list(db.scalars(select(SandboxOutboxMessage).where(SandboxOutboxMessage.provider == provider)
                           .order_by(SandboxOutboxMessage.created_at)))


def vapid_keys() -> tuple[str, str]:
    """A fresh VAPID key pair (P-256) as web push takes it: `(public, private)`, each unpadded URL-safe base64 (the
    public key an uncompressed point, the private key its 32-byte scalar)."""
    import base64

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    key = ec.generate_private_key(ec.SECP256R1())
    public = b64(key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))
    return public, b64(key.private_numbers().private_value.to_bytes(32, "big"))
