"""Sandbox web push: keeps each message in `sandbox_outbox` (provider `push`).

Behaves like a push service for the cases tests need: an endpoint containing `/gone/` answers as
410 (SubscriptionGone), one containing `/fail/` as a 500 (BadGateway), one containing `/too-large/` as 413
(MessageTooLarge), as does any service for a message past RFC 8291's 3993 octets of plaintext (session 32: the
sandbox took any size, and no test could meet the 413 the live adapter answers).
"""
from __future__ import annotations

from chalicelib.core.errors import BadGateway
from chalicelib.core.ids import new_id
from chalicelib.core.notify_outbox import record

from .base import MessageTooLarge, SubscriptionGone, encode_payload

PLAINTEXT_MAX = 3993  # RFC 8291 section 4: the plaintext of one 4096-octet aes128gcm message


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
        data = encode_payload(payload)
        if "/too-large/" in endpoint or len(data) > PLAINTEXT_MAX:
            raise MessageTooLarge(f"Push service refused the message as too large (HTTP 413, {len(data)} octets "
                                  "before encryption)")
        record(self.db, provider="push", target=endpoint, subject=payload.get("title"), body=payload.get("body"),
               payload=payload, external_id=f"sandbox-push-{new_id()}")
