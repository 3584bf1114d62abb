"""The live place search (Nominatim) against the wire format Nominatim documents, through the HTTP interface
(`GET /api/calendar/places`). Mocked bodies follow:
- https://nominatim.org/release-docs/latest/api/Search/ (parameters: q, format, limit at most 40, addressdetails,
  countrycodes)
- https://nominatim.org/release-docs/latest/api/Output/ (jsonv2: place_id, osm_type, osm_id, lat/lon as strings,
  category, type, place_rank, importance, addresstype, name, display_name, boundingbox; postcode points carry
  no osm_type / osm_id)
- Nominatim's JSON error body `{"error": {"code": <status>, "message": ...}}`
  (https://github.com/osm-search/Nominatim/blob/master/src/nominatim_api/v1/format.py)
"""
from urllib.parse import parse_qs, urlparse

import pytest
import responses

from tests.factories import grant, make_user

BASE = "https://nominatim.example.org"
URL = f"{BASE}/search"
AGENT = "wms-test/1.0 (ops@agency.test)"
LICENCE = "Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright"


@pytest.fixture
def places(set_env, monkeypatch):
    from chalicelib.providers.places import live as places_live

    monkeypatch.setattr(places_live, "_throttle", lambda: None)
    set_env(PLACES_MODE="live", PLACES_BASE_URL=BASE, PLACES_USER_AGENT=AGENT)
    with responses.RequestsMock() as mock:
        yield mock


@pytest.fixture
def user(db):
    user = make_user(db, email="pat@agency.test", name="Pat")
    grant(db, user, "calendar", "view")
    return user


def _place(place_id, osm_type, osm_id, name, display_name, lat, lon, category="tourism", kind="attraction"):
    place = {"place_id": place_id, "licence": LICENCE, "lat": lat, "lon": lon, "category": category, "type": kind,
             "place_rank": 30, "importance": 0.52, "addresstype": kind, "name": name, "display_name": display_name,
             "boundingbox": [lat, lat, lon, lon]}
    if osm_type:
        place.update(osm_type=osm_type, osm_id=osm_id)
    return place


def test_search_reads_the_jsonv2_array(api, user, places):
    places.add(responses.GET, URL, json=[
        _place(293_518_870, "way", 4_433_970, "Sydney Opera House",
               "Sydney Opera House, 2, Macquarie Street, Sydney, Council of the City of Sydney, New South Wales, 2000, "
               "Australia", "-33.8567844", "151.2152967"),
        _place(1_839_203, None, None, "2000", "2000, Sydney, New South Wales, Australia", "-33.86", "151.21",
               category="place", kind="postcode"),
    ])
    answer = api.get("/api/calendar/places?q=Sydney%20Opera%20House&tz=Australia/Sydney", as_=user)
    assert answer.status == 200, answer.json
    assert answer.json["results"] == [
        {"id": "W4433970", "label": "Sydney Opera House, 2, Macquarie Street, Sydney, Council of the City of Sydney, "
                                    "New South Wales, 2000, Australia"},
        {"id": "1839203", "label": "2000, Sydney, New South Wales, Australia"}]
    request = places.calls[0].request
    query = parse_qs(urlparse(request.url).query)
    assert query == {"q": ["Sydney Opera House"], "format": ["jsonv2"], "limit": ["5"], "addressdetails": ["0"],
                     "countrycodes": ["au"]}
    assert request.headers["User-Agent"] == AGENT


def test_a_refused_search_names_nominatims_message(api, user, places):
    message = "Parameter 'limit' must be a number between 1 and 40."
    places.add(responses.GET, URL, status=400, json={"error": {"code": 400, "message": message}})
    answer = api.get("/api/calendar/places?q=Harbour%20Bridge&tz=Australia/Sydney", as_=user)
    assert answer.status == 502
    assert message in answer.json["error"] and "HTTP 400" in answer.json["error"]


def test_a_rate_limit_carries_retry_after(api, user, places):
    places.add(responses.GET, URL, status=429, headers={"Retry-After": "30"}, body="Too Many Requests")
    answer = api.get("/api/calendar/places?q=Town%20Hall&tz=Australia/Sydney", as_=user)
    assert answer.status == 503 and answer.json["retry_after"] == 30 and "30 s" in answer.json["error"]


def test_live_mode_with_the_placeholder_user_agent_is_not_configured(api, user, set_env):
    """Nominatim's usage policy (operations.osmfoundation.org/policies/nominatim) asks for "a valid HTTP User-Agent
    identifying the application"; the settings' default names ops@example.com. Live with it (or with another
    example.com / .org / .net address, or none) answers as place search off does: 503, and Nominatim is not called."""
    for agent in (None, "wms/1.0 (ops@example.org)", " "):
        set_env(PLACES_MODE="live", PLACES_BASE_URL=BASE, PLACES_USER_AGENT=agent)
        with responses.RequestsMock() as mock:
            answer = api.get("/api/calendar/places?q=Opera%20House&tz=Australia/Sydney", as_=user)
            assert len(mock.calls) == 0
        assert answer.status == 503 and "PLACES_USER_AGENT" in answer.json["error"], (agent, answer.json)


@pytest.fixture
def turns(db, set_env, monkeypatch):
    """Live place search whose waits are recorded, not slept, in a process that has made no request yet."""
    from chalicelib.providers.places import live as places_live

    slept = []
    monkeypatch.setattr(places_live, "sleep", slept.append, raising=False)
    monkeypatch.setattr(places_live.time, "sleep", slept.append)
    monkeypatch.setattr(places_live, "_last", [0.0], raising=False)  # the per-process limiter it replaced
    set_env(PLACES_MODE="live", PLACES_BASE_URL=BASE, PLACES_USER_AGENT=AGENT)
    return slept


def _turn_of_another_process(db, seconds_from_now: float) -> None:
    """The last request another process reserved, as the database holds it (places/live.py, TURN_KEY)."""
    from datetime import timedelta

    from chalicelib.areas.calendar.models import PlaceSearchCache
    from chalicelib.core.ids import utcnow
    from chalicelib.providers.places.live import TURN_KEY

    db.add(PlaceSearchCache(key=TURN_KEY, results=[], cached_at=utcnow() + timedelta(seconds=seconds_from_now)))
    db.flush()


def test_searches_take_turns_a_second_apart_across_processes(api, db, user, turns):
    """The policy's one request a second is the application's, and the calendar function runs up to 10 processes:
    the last request's time is kept in the database, so a process that has made none yet still waits for the
    second after another's request (0.4 s ago: 0.6 s), and the next search a second after that. The calendar's
    routes are warmed first: a first request that loaded them took over a second on a loaded CI machine, past the
    other process's turn, so the first search waited none and the test saw one wait."""
    assert api.get("/api/calendar/settings", as_=user).status == 200  # loads the calendar area and its routes
    _turn_of_another_process(db, -0.4)
    with responses.RequestsMock() as mock:
        mock.add(responses.GET, URL, json=[])
        assert api.get("/api/calendar/places?q=Opera%20House&tz=Australia/Sydney", as_=user).status == 200
        assert api.get("/api/calendar/places?q=Town%20Hall&tz=Australia/Sydney", as_=user).status == 200
        assert len(mock.calls) == 2
    assert len(turns) == 2, turns
    assert 0.45 < turns[0] <= 0.6 and 1.3 < turns[1] <= 1.6, turns


def test_a_search_whose_turn_is_too_far_is_503_and_reserves_nothing(api, db, user, turns):
    from chalicelib.areas.calendar.models import PlaceSearchCache
    from chalicelib.providers.places.live import MAX_WAIT, TURN_KEY

    _turn_of_another_process(db, MAX_WAIT + 5)
    before = db.get(PlaceSearchCache, TURN_KEY).cached_at
    with responses.RequestsMock() as mock:
        answer = api.get("/api/calendar/places?q=Opera%20House&tz=Australia/Sydney", as_=user)
        assert len(mock.calls) == 0
    assert answer.status == 503 and answer.json["retry_after"] >= MAX_WAIT, answer.json
    db.expire_all()
    assert db.get(PlaceSearchCache, TURN_KEY).cached_at == before and turns == []
