"""Website fetch for research briefs: a plain HTTP GET behind the address checks of core.netguard (live), or a
sandbox that serves a deterministic storefront page for any public URL (the same address checks apply).

`get_website()` answers the adapter for `WEBSITE_MODE` (sandbox by default); `off` raises ServiceUnavailable.
Adapters raise netguard.UnsafeURL for a refused address and netguard.FetchFailed for other failures.
"""
from __future__ import annotations

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import WebsiteFetcher


def get_website() -> WebsiteFetcher:
    mode = get_settings().provider_mode("website")
    if mode == "live":
        from .live import LiveWebsite

        return LiveWebsite()
    if mode == "sandbox":
        from .sandbox import SandboxWebsite

        return SandboxWebsite()
    raise ServiceUnavailable("Website fetching is not configured")
