"""Website fetch: the interface every adapter implements."""
from __future__ import annotations

from typing import Protocol

from chalicelib.core.netguard import FetchedPage

MAX_BYTES = 2_000_000  # the byte cap of a fetched page
TIMEOUT = (3.05, 10.0)  # connect, read (seconds)
MAX_REDIRECTS = 3


class WebsiteFetcher(Protocol):
    def fetch(self, url: str) -> FetchedPage:
        """The page at `url` (http or https, port 80 or 443, public addresses only, at most 3 redirects each
        checked, at most MAX_BYTES). Raises netguard.UnsafeURL or netguard.FetchFailed."""
        ...
