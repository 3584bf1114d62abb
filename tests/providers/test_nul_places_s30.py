"""Session 30, places texts with a NUL or a lone surrogate: see tests/providers/test_nul_texts_s30.py."""
import responses

from tests.providers.test_nul_texts_s30 import LONE, strict
from tests.providers.test_places_wire import URL, _place, places, user  # noqa: F401 - fixtures


def test_a_place_label_is_cached_and_answered_cleaned(api, user, places):  # noqa: F811
    """A lone surrogate was cached and answered as JSON a strict reader refuses (the service's own response check: a
    500 on GET /api/calendar/places). (A NUL the cache's `json` column keeps, and a strict reader reads: no failure;
    it is dropped too now, as from every provider text.)"""
    bad, kept = LONE, "\ufffd"
    places.add(responses.GET, URL, json=[_place(1, "way", 4_433_970, "Opera", f"Sydney{bad} Opera House", "-33.85",
                                                "151.21")])
    answer = api.get("/api/calendar/places?q=Opera%20House&tz=Australia/Sydney", as_=user)
    assert answer.status == 200, answer.json
    assert strict(answer)["results"] == [{"id": "W4433970", "label": f"Sydney{kept} Opera House"}]
