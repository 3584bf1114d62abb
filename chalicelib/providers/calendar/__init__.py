"""Calendar: Google Calendar API v3 through a service account with domain-wide delegation (live), or a
sandbox that keeps events in the table `sandbox_calendar_events` and behaves like Google.

`get_calendar(db=None)` answers the adapter for `CALENDAR_MODE` (sandbox by default), or None for `off`
(and for `live` without a service account): callers answer what the documents name for an unconfigured
calendar (`{ calendars: [] }`, 503 for writes). Adapters raise CalendarError (`{ error, detail }`).
"""
from __future__ import annotations

from chalicelib.core.settings import get_settings

from .base import CalendarError, CalendarProvider, client_event_id, team_calendar_id  # noqa: F401 - the package's interface


def get_calendar(db=None) -> CalendarProvider | None:
    settings = get_settings()
    mode = settings.provider_mode("calendar")
    if mode == "live":
        if not (settings.calendar_service_account_email and settings.calendar_private_key):
            return None
        from .live import GoogleCalendar

        return GoogleCalendar(client_email=settings.calendar_service_account_email,
                              private_key=settings.calendar_private_key)
    if mode == "sandbox":
        from .sandbox import SandboxCalendar

        return SandboxCalendar(db=db)
    return None


def is_configured() -> bool:
    settings = get_settings()
    mode = settings.provider_mode("calendar")
    if mode == "live":
        return bool(settings.calendar_service_account_email and settings.calendar_private_key)
    return mode == "sandbox"
