"""E-mail: the interface every mail adapter implements."""
from __future__ import annotations

from typing import Protocol


class MailProvider(Protocol):
    def send(self, *, to: list[str], subject: str, text: str, html: str | None = None,
             reply_to: str | None = None) -> str:
        """Send one message; answer the provider's message id. Raises BadGateway on failure."""
        ...
