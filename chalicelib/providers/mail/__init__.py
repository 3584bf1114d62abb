"""E-mail: Amazon SES v2 through boto3 (live) or a sandbox that keeps messages in `sandbox_outbox`.

`get_mail(db=None)` answers the adapter for `MAIL_MODE` (sandbox by default); `off` raises
ServiceUnavailable (503). Adapters raise BadGateway (502) when the provider refuses a message.
The sandbox writes through `db` when given (the caller's transaction), else in its own unit of work.
"""
from __future__ import annotations

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import MailProvider


def get_mail(db=None) -> MailProvider:
    settings = get_settings()
    mode = settings.provider_mode("mail")
    if mode == "live":
        from .live import SESMail

        return SESMail(from_address=settings.mail_from)
    if mode == "sandbox":
        from .sandbox import SandboxMail

        return SandboxMail(db=db, from_address=settings.mail_from)
    raise ServiceUnavailable("E-mail is not configured")
