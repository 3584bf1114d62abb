"""Web push through pywebpush: aes128gcm payload encryption (RFC 8291) and a VAPID JWT (RFC 8292)
signed with `VAPID_PRIVATE_KEY` (base64url raw or DER key, or a PEM file path), `sub` from
`VAPID_SUBJECT`. The push service's 404 and 410 mean the subscription is gone."""
from __future__ import annotations

import json

import requests

from chalicelib.core.errors import BadGateway

from .base import SubscriptionGone


class WebPush:
    def __init__(self, *, public_key: str, private_key: str, subject: str, timeout: float = 10.0) -> None:
        self.public_key = public_key
        self.private_key = private_key
        self.subject = subject
        self.timeout = timeout

    def send(self, *, subscription: dict, payload: dict, ttl: int = 86400) -> None:
        from pywebpush import WebPushException, webpush

        from chalicelib.core.netguard import UnsafeURL, check_public_https_url

        try:  # checked again at delivery: the host may resolve elsewhere than when it subscribed
            check_public_https_url(subscription.get("endpoint") or "")
        except UnsafeURL as exc:
            raise SubscriptionGone(f"push endpoint refused: {exc}") from exc
        try:
            webpush(subscription_info=subscription, data=json.dumps(payload, separators=(",", ":")),
                    vapid_private_key=self.private_key, vapid_claims={"sub": self.subject},
                    ttl=ttl, timeout=self.timeout)
        except WebPushException as exc:
            status = getattr(exc.response, "status_code", None)
            if status in (404, 410):
                raise SubscriptionGone(f"push subscription gone (HTTP {status})") from exc
            raise BadGateway(f"Push service refused the message (HTTP {status}): {exc.message}") from exc
        except requests.RequestException as exc:
            raise BadGateway(f"Push service unreachable: {exc}") from exc
        except (ValueError, TypeError) as exc:  # malformed keys in the subscription or the settings
            raise BadGateway(f"Push message could not be encrypted or signed: {exc}") from exc
