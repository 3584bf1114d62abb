"""Nominatim-compatible search: `GET {base}/search?q=&format=jsonv2&limit=5&countrycodes=<cc>`.

The usage policy of the public Nominatim service is respected: an identifying User-Agent (PLACES_USER_AGENT),
at most one request a second from a process, at most 5 results a query, and results cached by the calendar area (a repeated query never reaches the
provider); the sandbox is the default, so development and tests never call it. 429 is a rate limit (503
naming Retry-After), a timeout 504, other failures 502.
"""
from __future__ import annotations

import threading
import time

import requests

from chalicelib.core.errors import BadGateway, GatewayTimeout, ServiceUnavailable

from .base import MAX_RESULTS


MIN_INTERVAL = 1.0  # Nominatim's usage policy: at most one request a second (per process here)
_lock = threading.Lock()
_last = [0.0]


def _throttle() -> None:
    with _lock:
        wait = _last[0] + MIN_INTERVAL - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        _last[0] = time.monotonic()


class NominatimPlaces:
    def __init__(self, *, base_url: str, user_agent: str, timeout: float = 8.0) -> None:
        self.url = base_url.rstrip("/") + "/search"
        self.user_agent = user_agent
        self.timeout = timeout

    def search(self, query: str, *, country: str | None) -> list[dict]:
        params = {"q": query, "format": "jsonv2", "limit": MAX_RESULTS, "addressdetails": 0}
        if country:
            params["countrycodes"] = country
        _throttle()
        try:
            response = requests.get(self.url, params=params, timeout=self.timeout,
                                    headers={"User-Agent": self.user_agent, "Accept-Language": "en"})
        except requests.Timeout as exc:
            raise GatewayTimeout("Place search timed out") from exc
        except requests.RequestException as exc:
            raise BadGateway(f"Place search unreachable: {exc}") from exc
        if response.status_code == 429:
            raise ServiceUnavailable(f"Place search rate limited (retry after {response.headers.get('Retry-After', '?')} s)")
        if response.status_code != 200:
            raise BadGateway(f"Place search answered HTTP {response.status_code}")
        try:
            items = response.json()
        except ValueError as exc:
            raise BadGateway("Place search answered a body that is not JSON") from exc
        if not isinstance(items, list):
            raise BadGateway("Place search answered an unexpected body")
        results = []
        for item in items[:MAX_RESULTS]:
            if not isinstance(item, dict) or not item.get("display_name"):
                continue
            osm = f"{(item.get('osm_type') or '')[:1].upper()}{item.get('osm_id')}" if item.get("osm_id") else None
            results.append({"id": osm or str(item.get("place_id")), "label": item["display_name"]})
        return results
