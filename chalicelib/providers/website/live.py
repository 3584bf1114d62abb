"""Live website fetch: core.netguard.fetch_public_page (requests, every address checked, capped)."""
from __future__ import annotations

from chalicelib.core.netguard import FetchedPage, fetch_public_page

from .base import MAX_BYTES, MAX_REDIRECTS, TIMEOUT


class LiveWebsite:
    def fetch(self, url: str) -> FetchedPage:
        return fetch_public_page(url, max_bytes=MAX_BYTES, timeout=TIMEOUT, max_redirects=MAX_REDIRECTS)
