"""Web push: the interface every push adapter implements."""
from __future__ import annotations

from typing import Protocol


class SubscriptionGone(Exception):
    """The push service answered 404 or 410: the subscription no longer exists; forget it."""


class PushProvider(Protocol):
    public_key: str

    def send(self, *, subscription: dict, payload: dict, ttl: int = 86400) -> None:
        """Encrypt and send one message to one subscription (`{endpoint, keys: {p256dh, auth}}`).
        Raises SubscriptionGone (404/410) or BadGateway (any other failure)."""
        ...
