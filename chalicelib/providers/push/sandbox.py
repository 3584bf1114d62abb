"""Sandbox web push: keeps each message in `sandbox_outbox` (provider `push`).

Behaves like a push service for the cases tests need: an endpoint containing `/gone/` answers as
410 (SubscriptionGone), one containing `/fail/` as a 500 (BadGateway).
"""
from __future__ import annotations

from chalicelib.core.errors import BadGateway
from chalicelib.core.ids import new_id
from chalicelib.core.notify_outbox import record

from .base import SubscriptionGone


class SandboxPush:
    def __init__(self, *, db=None, public_key: str) -> None:
        self.db = db
        self.public_key = public_key

    def send(self, *, subscription: dict, payload: dict, ttl: int = 86400) -> None:
        endpoint = subscription.get("endpoint") or ""
        if "/gone/" in endpoint:
            raise SubscriptionGone("push subscription gone (HTTP 410)")
        if "/fail/" in endpoint:
            raise BadGateway("Push service refused the message (HTTP 500)")
        record(self.db, provider="push", target=endpoint, subject=payload.get("title"), body=payload.get("body"),
               payload=payload, external_id=f"sandbox-push-{new_id()}")
