"""Nominatim-compatible search: `GET {base}/search?q=&format=jsonv2&limit=5&addressdetails=0&countrycodes=<cc>`.

Wire format (https://nominatim.org/release-docs/latest/api/Search/ and .../api/Output/): `format=jsonv2` answers
a JSON array of places (an empty one when nothing matches); each has `place_id`, `osm_type` (`node`, `way`,
`relation`; absent for postcode points), `osm_id` (a number), `lat` / `lon` (strings), `category`, `type`,
`place_rank`, `importance`, `addresstype`, `name`, `display_name` (the full comma-separated address) and
`boundingbox` (strings). A result's id is the OSM type's initial and id (`W5000`), or the `place_id` when the
place has no OSM object; its label is `display_name`. `addressdetails=0`: the `address` breakdown is not read.
`limit` is at most 40 (5 asked); `countrycodes` is ISO 3166-1 alpha-2; `Accept-Language: en` picks English
names. Only `/search` is called (the service has no use for `/reverse`).

The usage policy of the public Nominatim service (https://operations.osmfoundation.org/policies/nominatim/) is
respected: an identifying User-Agent (PLACES_USER_AGENT; the placeholder default is refused in live mode, see
`providers.places.get_places`), at most one request a second from the whole application (the policy's
"absolute maximum of 1 request per second", which is per application, not per process: `_throttle`), at most 5
results a query, and results cached by the calendar area (a repeated query never reaches the provider); the
sandbox is the default, so development and tests never call it.

The spacing across processes (the calendar function runs up to 10 at once): each search reserves its turn in the
database before it calls, in a short transaction of its own under a Postgres advisory lock (core.locks.lock_key
`places-nominatim-turn`), reading and moving the time of the last request reserved, stored as the `cached_at` of
one row of the calendar's `place_search_cache` (key `TURN_KEY`, which no search's key can be: those all hold a
`|`); its turn is a second after the last one's, or now. It then waits for its turn with no transaction open,
and calls. A search whose turn is more than MAX_WAIT seconds away reserves nothing and is a 503 naming when to
retry. The processes' clocks are compared (the turn is a UTC time written by one process and read by another):
hosts kept by NTP differ by milliseconds. SQLite (development) takes no advisory lock; its writers are serialised.

Errors: Nominatim answers a refused request with its HTTP status and, in JSON formats, `{"error": {"code",
"message"}}` (src/nominatim_api/v1/format.py); that message is named in the 502. 429 is a rate limit (503
naming Retry-After, `retry_after` in the body too; 1 s when not given); the public server blocks a client that
breaks the policy with 403 (a 502 here); a timeout 504; an unreachable server and any other failure 502. A
transport failure names only the exception's type (`Place search unreachable (ConnectionError)`): its text names
the host, port and URL, and is logged, never answered (session 22).
"""
from __future__ import annotations

import time
from datetime import timedelta

import requests

from chalicelib.core.errors import BadGateway
from chalicelib.providers import http as provider_http

from .base import MAX_RESULTS


MIN_INTERVAL = 1.0  # Nominatim's usage policy: at most one request a second, from the whole application
# the longest wait for a turn: the calendar function's 10 concurrent requests one second apart (its timeout is 30 s,
# Nominatim's answer 8 s at most); a search that would wait longer is a 503
MAX_WAIT = 10.0
TURN_KEY = "~nominatim:last-request"  # a place_search_cache key no search has (theirs are `<country>|<query>`)
sleep = time.sleep  # tests replace it


def _reserve_turn() -> float:
    """Reserve this search's turn (module docstring): the seconds to wait before calling, or a 503 when that is
    more than MAX_WAIT (nothing reserved). One short transaction of its own, committed before the wait."""
    from chalicelib.areas.calendar.models import PlaceSearchCache
    from chalicelib.core.db import unit_of_work
    from chalicelib.core.ids import utcnow
    from chalicelib.core.locks import insert_ignore, lock_key

    with unit_of_work() as uow:
        db = uow.session
        lock_key(db, "places-nominatim-turn")  # reservations take turns across processes
        row = db.get(PlaceSearchCache, TURN_KEY, populate_existing=True)
        now = utcnow()
        turn = now if row is None else max(now, row.cached_at + timedelta(seconds=MIN_INTERVAL))
        wait = (turn - now).total_seconds()
        if wait > MAX_WAIT or not provider_http.wait_fits(wait):  # or past the request's deadline (session 30)
            raise provider_http.rate_limited("Place search", wait)
        if row is None:
            insert_ignore(db, PlaceSearchCache, {"key": TURN_KEY, "results": [], "cached_at": turn},
                          conflict=("key",))
        else:
            row.cached_at = turn
    return wait


def _throttle() -> None:
    """Wait for this search's turn: at most one request a second to the provider from every process together."""
    wait = _reserve_turn()
    if wait > 0:
        sleep(wait)


def _error_message(response) -> str:
    """Nominatim's `error.message` (`{"error": {"code", "message"}}`), or a plain `error` string; "" otherwise."""
    try:
        body = provider_http.read_json(response)
    except ValueError:
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        error = error.get("message")
    return str(error)[:300] if error else ""


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
            response = requests.get(self.url, params=params, timeout=provider_http.call_timeout(self.timeout),
                                    headers={"User-Agent": self.user_agent, "Accept-Language": "en"})
        except requests.Timeout as exc:
            raise provider_http.timed_out("Place search", exc) from exc
        except requests.RequestException as exc:  # its text (host, port, URL) is the log's, never the caller's
            raise provider_http.unreachable("Place search", exc) from exc
        if response.status_code == 429:
            raise provider_http.rate_limited("Place search", provider_http.retry_after(response))
        if response.status_code != 200:
            message = _error_message(response)
            raise BadGateway(f"Place search answered HTTP {response.status_code}" + (f": {message}" if message else ""))
        try:
            items = provider_http.read_json(response)  # no NUL, no lone surrogate (session 30)
        except ValueError as exc:
            raise BadGateway("Place search answered a body that is not JSON") from exc
        if not isinstance(items, list):
            message = _error_message(response)
            raise BadGateway("Place search answered an unexpected body" + (f": {message}" if message else ""))
        results = []
        for item in items[:MAX_RESULTS]:
            # a result that is no object, or whose display_name is no string, is left out; an osm_type that is no
            # string or an osm_id that is neither a number nor a string is not read (session 30: `[:1].upper()` on
            # a number was a 500, and a label that is no string was cached and answered)
            if not isinstance(item, dict) or not isinstance(item.get("display_name"), str) or not item["display_name"]:
                continue
            osm_type, osm_id = item.get("osm_type"), item.get("osm_id")
            osm_type = osm_type if isinstance(osm_type, str) else ""
            readable = isinstance(osm_id, (int, str)) and not isinstance(osm_id, bool)
            osm = f"{osm_type[:1].upper()}{osm_id}" if readable and osm_id else None
            results.append({"id": osm or str(item.get("place_id")), "label": item["display_name"]})
        return results
