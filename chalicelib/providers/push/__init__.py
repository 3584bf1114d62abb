"""Web push (RFC 8291 encryption, RFC 8292 VAPID) through pywebpush (live), or a sandbox that keeps
messages in `sandbox_outbox`.

`get_push(db=None)` answers the adapter for `PUSH_MODE` (sandbox by default); `off`, or `live`
without both VAPID keys, raises ServiceUnavailable (503). `push_public_key()` is the VAPID public
key browsers subscribe with (503 when push is not configured).
"""
from __future__ import annotations

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import MessageTooLarge, PushProvider, SubscriptionGone

# A fixed P-256 public key the sandbox hands out when no VAPID key is configured: the sandbox
# never signs nor sends, so browsers under `make run` can subscribe without setup.
SANDBOX_PUBLIC_KEY = "BEJk8wJApJtCCGWomYctKUulvEHGH1ZmSSjYurRsYRad-R6BRad5Pk1l3j1y37Q9OHCEM9Ra8x5lPSrAIF3vNho"


def get_push(db=None) -> PushProvider:
    settings = get_settings()
    mode = settings.provider_mode("push")
    if mode == "live":
        if not (settings.vapid_public_key and settings.vapid_private_key):
            raise ServiceUnavailable("Web push is not configured")
        from .live import WebPush

        return WebPush(public_key=settings.vapid_public_key, private_key=settings.vapid_private_key,
                       subject=settings.vapid_subject)
    if mode == "sandbox":
        from .sandbox import SandboxPush

        return SandboxPush(db=db, public_key=settings.vapid_public_key or SANDBOX_PUBLIC_KEY)
    raise ServiceUnavailable("Web push is not configured")


def push_public_key() -> str:
    return get_push().public_key


__all__ = ["get_push", "push_public_key", "PushProvider", "SubscriptionGone", "MessageTooLarge", "SANDBOX_PUBLIC_KEY"]
