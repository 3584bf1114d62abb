"""Place search: a Nominatim-compatible `/search` endpoint (live) or a deterministic sandbox.

`get_places()` answers the adapter for `PLACES_MODE` (sandbox by default); `off` raises ServiceUnavailable (503),
and so does `live` without an identifying `PLACES_USER_AGENT` (`identifies`): Nominatim's usage policy
(https://operations.osmfoundation.org/policies/nominatim/) requires "a valid HTTP User-Agent identifying the
application", and the settings' default is a placeholder naming `ops@example.com`.
`country_for_timezone(tz)` gives the ISO country code of an IANA time zone (tzdata's zone.tab), used to bias
results to the user's country.
"""
from __future__ import annotations

import re
from functools import lru_cache

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import PLACES_USER_AGENT_PLACEHOLDER, get_settings

from .base import MAX_RESULTS, PlacesProvider  # noqa: F401 - the package's interface


# an address at a domain reserved for documentation (RFC 2606 section 3: example.com, .net, .org) identifies nobody
_PLACEHOLDER = re.compile(r"(?<![a-z0-9-])example\.(com|net|org)(?![a-z0-9-]|\.[a-z0-9])", re.IGNORECASE)


def identifies(user_agent: str | None) -> bool:
    """Whether `user_agent` can identify this deployment to Nominatim: not empty, not the settings' placeholder
    default, naming no example.com / .net / .org address."""
    agent = (user_agent or "").strip()
    return bool(agent) and agent != PLACES_USER_AGENT_PLACEHOLDER and not _PLACEHOLDER.search(agent)


def get_places() -> PlacesProvider:
    settings = get_settings()
    mode = settings.provider_mode("places")
    if mode == "live":
        if not identifies(settings.places_user_agent):
            raise ServiceUnavailable("Place search is not configured: PLACES_USER_AGENT must identify this "
                                     "deployment (Nominatim's usage policy), not the placeholder default")
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
