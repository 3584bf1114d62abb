"""SMS, MMS and the message app (WhatsApp): the Twilio Messages API (live) or a sandbox that keeps each
message in `sandbox_outbox` (provider `sms`).

`get_sms(db=None)` answers the adapter for `SMS_MODE` (sandbox by default). `off` is a disabled provider:
SmsDisabled (503); `live` without TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM_NUMBER is an
unconfigured one: SmsNotConfigured (500, as document 2's errors table says). `sms_status()` answers
`(connected, reason)` without raising, for the relationship profile's `sms_connected`.
"""
from __future__ import annotations

from chalicelib.core.errors import DomainError, ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import SmsProvider


class SmsNotConfigured(DomainError):
    """Document 2: a message send while the SMS provider is not configured answers 500."""
    status = 500
    default_message = "The SMS provider is not configured"


class SmsDisabled(ServiceUnavailable):
    default_message = "The SMS provider is disabled"


def sms_status() -> tuple[bool, str | None]:
    try:
        check_sms()
    except DomainError as exc:
        return False, exc.message
    return True, None


def check_sms() -> str:
    """The mode in use; SmsDisabled or SmsNotConfigured when messages cannot be sent."""
    settings = get_settings()
    mode = settings.provider_mode("sms")
    if mode == "live":
        if not (settings.twilio_account_sid and settings.twilio_auth_token and settings.twilio_from_number):
            raise SmsNotConfigured("The SMS provider is not configured (Twilio account SID, auth token and sender)")
        return mode
    if mode == "sandbox":
        return mode
    raise SmsDisabled()


def get_sms(db=None) -> SmsProvider:
    settings = get_settings()
    mode = check_sms()
    if mode == "live":
        from .live import TwilioSms

        return TwilioSms(account_sid=settings.twilio_account_sid, auth_token=settings.twilio_auth_token,
                         from_number=settings.twilio_from_number,
                         msgapp_from=settings.twilio_msgapp_from or settings.twilio_from_number)
    from .sandbox import SandboxSms

    return SandboxSms(db=db)
