"""Sandbox e-mail: keeps each message in `sandbox_outbox` (provider `mail`) and answers an id.

Behaves like SES for the cases tests need: an address without `@`, or at the domain
`bounce.test`, is refused (MessageRejected, 502).
"""
from __future__ import annotations

from chalicelib.core.errors import BadGateway
from chalicelib.core.ids import new_id
from chalicelib.core.notify_outbox import record

from .base import subject_line


class SandboxMail:
    def __init__(self, *, db=None, from_address: str) -> None:
        self.db = db
        self.from_address = from_address

    def send(self, *, to: list[str], subject: str, text: str, html: str | None = None,
             reply_to: str | None = None) -> str:
        if not to:
            raise BadGateway("E-mail provider refused the message: MessageRejected: no recipient")
        for address in to:
            if "@" not in address or address.lower().endswith("@bounce.test"):
                raise BadGateway(f"E-mail provider refused the message: MessageRejected: {address}")
        message_id = f"sandbox-mail-{new_id()}"
        record(self.db, provider="mail", target=", ".join(to), subject=subject_line(subject), body=text,
               payload={"from": self.from_address, "html": html, "reply_to": reply_to}, external_id=message_id)
        return message_id
