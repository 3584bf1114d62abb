"""Meeting notes: the Fireflies GraphQL API (live) or a sandbox holding a handful of deterministic notes.

`get_meetnotes(db=None)` answers the adapter for `MEETNOTES_MODE` (sandbox by default); `off`, or `live`
without `MEETNOTES_API_KEY`, raises ServiceUnavailable (503). Failures: BadGateway (502), a rate limit 503,
a timeout 504.
"""
from __future__ import annotations

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import MeetNotesProvider


def is_configured() -> bool:
    settings = get_settings()
    mode = settings.provider_mode("meetnotes")
    return mode == "sandbox" or (mode == "live" and bool(settings.meetnotes_api_key))


def get_meetnotes(db=None) -> MeetNotesProvider:
    settings = get_settings()
    mode = settings.provider_mode("meetnotes")
    if mode == "live" and settings.meetnotes_api_key:
        from .live import FirefliesNotes

        return FirefliesNotes(api_key=settings.meetnotes_api_key)
    if mode == "sandbox":
        from .sandbox import SandboxNotes

        return SandboxNotes(db=db, api_key=settings.meetnotes_api_key)
    raise ServiceUnavailable("Meeting notes are not configured")
