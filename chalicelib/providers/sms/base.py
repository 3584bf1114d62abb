"""SMS, MMS and message app: the interface every adapter implements."""
from __future__ import annotations

from typing import Protocol

CHANNELS = ("sms", "mms", "msgapp")


class SmsProvider(Protocol):
    def send(self, *, channel: str, to: str, body: str, media_url: str | None = None) -> dict:
        """Send one message to an E.164 number; answer `{sid, status}` (Twilio's message sid and status,
        e.g. `queued`). Raises BadGateway (502) when the provider refuses or fails, ServiceUnavailable (503)
        when it is rate limited, GatewayTimeout (504) when it does not answer in time."""
        ...
