"""E-mail: the interface every mail adapter implements."""
from __future__ import annotations

import re
from typing import Protocol

_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")


def subject_line(subject: str) -> str:
    """A message's subject as one header line: line breaks and other control characters (a title's CR/LF, which
    a header would read as the end of the Subject and the start of another, `Bcc:` ...) become one space; blank
    is "Notification". Every adapter sends its subject through it."""
    return " ".join(_BREAKS.sub(" ", subject or "").split()) or "Notification"


class MailProvider(Protocol):
    def send(self, *, to: list[str], subject: str, text: str, html: str | None = None,
             reply_to: str | None = None) -> str:
        """Send one message; answer the provider's message id. Raises BadGateway on failure."""
        ...
