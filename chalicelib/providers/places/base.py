"""Place search: the interface every adapter implements."""
from __future__ import annotations

from typing import Protocol

MAX_RESULTS = 5  # document 3, Limits: place search
MIN_QUERY = 2


class PlacesProvider(Protocol):
    def search(self, query: str, *, country: str | None) -> list[dict]:
        """At most MAX_RESULTS `{id, label}`, biased to (limited to) `country` (ISO 3166-1 alpha-2) when given."""
        ...
