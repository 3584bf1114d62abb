"""Professional-network data: the People Data Labs enrichment API (live) or a deterministic sandbox.

`get_enrichment()` answers the adapter for `ENRICHMENT_MODE` (sandbox by default); `off`, or `live` without
PDL_API_KEY, raises ServiceUnavailable (503). Adapters answer None for "no data found" (PDL's 404) and raise
EnrichmentError subclasses: credits exhausted (PDL 402) and rate limited (429) as 503 with a clear message,
refused key (401/403) and other failures as 502, no answer in time as 504.
"""
from __future__ import annotations

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import EnrichmentProvider


def get_enrichment() -> EnrichmentProvider:
    settings = get_settings()
    mode = settings.provider_mode("enrichment")
    if mode == "live":
        if not settings.pdl_api_key:
            raise ServiceUnavailable("Profile enrichment is not configured (PDL_API_KEY)")
        from .live import PeopleDataLabs

        return PeopleDataLabs(api_key=settings.pdl_api_key, base_url=settings.pdl_base_url)
    if mode == "sandbox":
        from .sandbox import SandboxEnrichment

        return SandboxEnrichment()
    raise ServiceUnavailable("Profile enrichment is not configured")
