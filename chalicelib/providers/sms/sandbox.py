"""Sandbox SMS: keeps each message in `sandbox_outbox` (provider `sms`) and answers Twilio-like sids.

Behaves like Twilio for the cases tests need: Twilio's magic number +15005550001 (and any number ending
in 0001 at +1500555) is refused as an invalid `To` (error 21211, 502); +15005550009 cannot receive SMS
(21614, 502).
"""
from __future__ import annotations

import hashlib
import itertools

from chalicelib.core.errors import BadGateway
from chalicelib.core.notify_outbox import record

_counter = itertools.count(1)


class SandboxSms:
    def __init__(self, *, db=None) -> None:
        self.db = db

    def send(self, *, channel: str, to: str, body: str, media_url: str | None = None) -> dict:
        if to == "+15005550001":
            raise BadGateway("SMS provider refused the message: 21211 The 'To' number is not a valid phone number")
        if to == "+15005550009":
            raise BadGateway("SMS provider refused the message: 21614 'To' number is not a valid mobile number")
        sid = "SM" + hashlib.sha1(f"{to}|{body}|{next(_counter)}".encode()).hexdigest()[:32]
        target = f"whatsapp:{to}" if channel == "msgapp" else to
        record(self.db, provider="sms", target=target, subject=channel, body=body,
               payload={"media_url": [media_url]} if media_url else None, external_id=sid)
        return {"sid": sid, "status": "queued"}
