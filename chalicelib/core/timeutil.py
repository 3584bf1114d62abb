"""The organisation's time zone: today, this week (Monday to Sunday), ISO formatting."""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from .settings import get_settings


def org_zone() -> ZoneInfo:
    return ZoneInfo(get_settings().org_timezone)


def org_now() -> datetime:
    return datetime.now(timezone.utc).astimezone(org_zone())


def org_today() -> date:
    return org_now().date()


def week_bounds(day: date | None = None) -> tuple[date, date]:
    """Monday and Sunday of the organisation's week containing `day` (default today)."""
    day = day or org_today()
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def iso(value: datetime | date | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    return value.isoformat()
