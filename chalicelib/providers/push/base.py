"""Web push: the interface every push adapter implements, and how a message is serialised.

RFC 8291 section 4: a push service need not accept more than 4096 octets of payload body, which leaves "at most
3993 octets of plaintext" (aes128gcm adds a 86-octet header, a padding delimiter and a 16-octet tag), and RFC 8030
section 7.2 lets it answer 413 to a larger one. The message is JSON in UTF-8 (`encode_payload`: not `\\uXXXX`
escapes, which made each character outside ASCII 6 to 12 octets); the notification worker shortens its text until
the serialised message is at most MAX_PAYLOAD_BYTES, well within the 3993."""
from __future__ import annotations

import json
from typing import Protocol

MAX_PAYLOAD_BYTES = 3000  # of UTF-8 JSON; RFC 8291 allows 3993 of plaintext in one 4096-octet message


def encode_payload(payload: dict) -> bytes:
    """The message as it is encrypted and sent: compact JSON, UTF-8, characters outside ASCII as themselves."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class SubscriptionGone(Exception):
    """The push service answered 404 or 410 (or the endpoint is no longer a public https URL): the subscription
    no longer exists; forget it."""


class MessageTooLarge(Exception):
    """The push service answered 413: this message can never be delivered to that subscription (not retried)."""


class PushProvider(Protocol):
    public_key: str

    def send(self, *, subscription: dict, payload: dict, ttl: int = 86400) -> None:
        """Encrypt and send one message to one subscription (`{endpoint, keys: {p256dh, auth}}`).
        Raises SubscriptionGone (404/410), MessageTooLarge (413) or BadGateway (any other failure)."""
        ...
