"""Place search: a Nominatim-compatible `/search` endpoint (live) or a deterministic sandbox.

`get_places()` answers the adapter for `PLACES_MODE` (sandbox by default); `off` raises ServiceUnavailable.
`country_for_timezone(tz)` gives the ISO country code of an IANA time zone (tzdata's zone.tab), used to bias
results to the user's country.
"""
from __future__ import annotations

from functools import lru_cache

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import MAX_RESULTS, PlacesProvider  # noqa: F401 - the package's interface


def get_places() -> PlacesProvider:
    settings = get_settings()
    mode = settings.provider_mode("places")
    if mode == "live":
        from .live import NominatimPlaces

        return NominatimPlaces(base_url=settings.places_base_url, user_agent=settings.places_user_agent)
    if mode == "sandbox":
        from .sandbox import SandboxPlaces

        return SandboxPlaces()
    raise ServiceUnavailable("Place search is not configured")


@lru_cache(maxsize=1)
def _zone_countries() -> dict[str, str]:
    from importlib import resources

    out: dict[str, str] = {}
    try:
        text = resources.files("tzdata").joinpath("zoneinfo", "zone.tab").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):  # pragma: no cover - tzdata is a runtime dependency
        return out
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) >= 3:
            out[parts[2]] = parts[0].lower()
    return out


def country_for_timezone(tz: str | None) -> str | None:
    """`au` for `Australia/Sydney`; None for an unknown zone or one without a country (UTC)."""
    return _zone_countries().get(tz or "") if tz else None
