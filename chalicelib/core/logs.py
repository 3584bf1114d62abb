"""Structured logs: every line one JSON object (AWS Lambda Powertools' Logger, named `wms`; the
`wms.*` loggers of the core and the areas write through it), with the request's id, route, user id,
status and duration bound by the endpoint decorator, and nothing secret in it.

Redaction runs on the formatted line, so it covers messages, arguments and tracebacks alike: bearer
tokens and anything shaped like a JWT, the values of the secret settings (signing keys, provider keys,
service tokens), and the values of JSON or `key=value` fields named like secrets.
"""
from __future__ import annotations

import re
import uuid

from aws_lambda_powertools.logging import Logger
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

REDACTED = "[redacted]"
_TOKENS = re.compile(r"(?i)\b(bearer\s+)[^\s\"',;]+|eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*")
_FIELDS = re.compile(
    r"(?i)((?:\\?[\"'])?(?:password|passwd|secret|token|api_key|apikey|authorization|cookie|private_key)"
    r"[a-z_]*(?:\\?[\"'])?\s*[:=]\s*)(\\?[\"'])?([^\s\"',;\\}]+)")
SECRET_SETTINGS = ("auth_jwt_secret", "secrets_key", "portal_service_token", "ai_api_key", "chat_bot_token",
                   "vapid_private_key", "calendar_private_key", "meetnotes_api_key",
                   "twilio_auth_token", "pdl_api_key")
_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{7,127}")


_secrets_of: tuple[object, list[str]] | None = None


def _secret_values() -> list[str]:
    """The secret settings' values, longest first: worked out once per settings object (settings are read
    once per container; a test that resets them gets a new object), not on every log line."""
    global _secrets_of
    from .settings import get_settings

    try:
        settings = get_settings()
    except Exception:  # noqa: BLE001 - settings that cannot load (a refused value) must not break logging:
        return []  # no settings were read, so there are no secret values of theirs to redact
    if _secrets_of is not None and _secrets_of[0] is settings:
        return _secrets_of[1]
    values = [getattr(settings, name, None) for name in SECRET_SETTINGS]
    values += [value for name, value in settings.model_dump().items()
               if isinstance(value, str) and name.endswith(("_secret", "_api_key", "_token", "_password"))]
    found = sorted({value for value in values if isinstance(value, str) and len(value) >= 8}, key=len, reverse=True)
    _secrets_of = (settings, found)
    return found


# a line holds something for _TOKENS or _FIELDS only when it holds one of these (lowercased): the two
# patterns, tried at every position of a line, cost about 60 us on a request line that has none of them
_TOKEN_MARKS = ("bearer", "eyj")
_FIELD_MARKS = ("password", "passwd", "secret", "token", "api_key", "apikey", "authorization", "cookie",
                "private_key")


def redact(text: str) -> str:
    lower = text.lower()
    if any(mark in lower for mark in _TOKEN_MARKS):
        text = _TOKENS.sub(lambda m: (m.group(1) or "") + REDACTED, text)
    if any(mark in lower for mark in _FIELD_MARKS):
        text = _FIELDS.sub(lambda m: m.group(1) + (m.group(2) or "") + REDACTED, text)
    for value in _secret_values():
        text = text.replace(value, REDACTED)
    return text


class RedactingFormatter(LambdaPowertoolsFormatter):
    def format(self, record) -> str:  # noqa: A003 - logging's name
        return redact(super().format(record))


logger = Logger(service="wms", logger_formatter=RedactingFormatter(utc=True), use_rfc3339=True)


def request_id(incoming: str | None, gateway: str | None) -> str:
    """The caller's X-Request-Id when it is a well-formed id (8 to 128 of letters, digits, `.`, `_`, `:`,
    `-`), else API Gateway's request id, else a new one."""
    if incoming and _REQUEST_ID.fullmatch(incoming):
        return incoming
    if gateway and _REQUEST_ID.fullmatch(gateway):
        return gateway
    return str(uuid.uuid4())


def bind(**keys) -> None:
    """Add keys to every log line of the current request."""
    logger.append_keys(**keys)


def unbind(*names: str) -> None:
    logger.remove_keys(list(names))
