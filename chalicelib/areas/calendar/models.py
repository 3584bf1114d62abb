"""Calendar: the area's records. The sandbox provider's event table is declared with the provider and
listed here so that the schema checks see it."""
from __future__ import annotations

from chalicelib.providers.calendar.models import SandboxCalendarEvent  # noqa: F401 - migrated by calendar_0001
