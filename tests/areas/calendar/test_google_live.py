"""The live calendar adapter (Google Calendar API v3, service account with domain-wide delegation) and the live
place search (Nominatim) against recorded answers (`responses`): the token exchange with a signed JWT, the
cached token, an expired token, paging, a 429 and provider errors surfacing as `{ error, detail }`."""
import json
from urllib.parse import parse_qs, urlparse

import jwt
import pytest
import requests
import responses
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from chalicelib.providers.calendar.live import clear_token_cache
from tests.factories import grant, make_user

TOKEN = "https://oauth2.googleapis.com/token"
API = "https://www.googleapis.com/calendar/v3"
SA = "wms-calendar@agency-project.iam.gserviceaccount.com"
_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PEM = _KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                         serialization.NoEncryption()).decode()
PUBLIC = _KEY.public_key()


@pytest.fixture
def live(set_env):
    set_env(CALENDAR_MODE="live", CALENDAR_SERVICE_ACCOUNT_EMAIL=SA, CALENDAR_PRIVATE_KEY=PEM.replace("\n", "\\n"),
            CALENDAR_TEAM_CALENDAR_ID="team@group.calendar.google.com")
    clear_token_cache()
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock
    clear_token_cache()


@pytest.fixture
def user(db):
    user = make_user(db, email="dana@agency.test", name="Dana")
    grant(db, user, "calendar", "update")
    return user


def _token(mock, token="ya29.first", expires=3600):
    mock.add(responses.POST, TOKEN, json={"access_token": token, "expires_in": expires, "token_type": "Bearer"})


def _google_event(event_id="evt1", **extra):
    return {"kind": "calendar#event", "etag": "\"1\"", "id": event_id, "status": "confirmed",
            "htmlLink": f"https://www.google.com/calendar/event?eid={event_id}", "summary": "Planning",
            "start": {"dateTime": "2026-12-03T10:00:00+11:00"}, "end": {"dateTime": "2026-12-03T11:00:00+11:00"},
            "organizer": {"email": "dana@agency.test", "self": True}, **extra}


def test_token_exchange_signs_a_delegated_jwt_and_is_cached(api, live, user):
    _token(live)
    path = f"{API}/calendars/primary/events"
    live.add(responses.GET, path, json={"items": [_google_event("e1")], "nextPageToken": "p2"})
    live.add(responses.GET, path, json={"items": [_google_event("e2")]})
    answer = api.get("/api/calendar/events?timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z", as_=user)
    assert answer.status == 200, answer
    assert [e["id"] for e in answer.json["events"] if not e.get("synthetic")] == ["e1", "e2"]
    assert answer.json["events"][0]["etag"] == "\"1\""  # the provider's other fields pass through
    token_call = live.calls[0].request
    form = parse_qs(token_call.body)
    assert form["grant_type"] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
    claims = jwt.decode(form["assertion"][0], PUBLIC, algorithms=["RS256"], audience=TOKEN)
    assert (claims["iss"], claims["sub"], claims["scope"]) == (SA, "dana@agency.test",
                                                               "https://www.googleapis.com/auth/calendar")
    assert claims["exp"] - claims["iat"] == 3600
    first, second = (urlparse(call.request.url) for call in live.calls[1:3])
    query = parse_qs(first.query)
    assert query["timeMin"] == ["2026-12-01T00:00:00Z"] and query["singleEvents"] == ["true"]
    assert "pageToken" not in query and parse_qs(second.query)["pageToken"] == ["p2"]
    assert live.calls[1].request.headers["Authorization"] == "Bearer ya29.first"
    # a second request uses the cached token: no new exchange
    api.get("/api/calendar/events?timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z", as_=user)
    assert sum(1 for call in live.calls if call.request.url == TOKEN) == 1


def test_an_expired_token_is_renewed_once(api, live, user):
    _token(live, "ya29.old")
    _token(live, "ya29.new")
    path = f"{API}/calendars/primary/events"
    live.add(responses.POST, path, status=401, json={"error": {"errors": [{
        "domain": "global", "reason": "authError", "message": "Invalid Credentials", "locationType": "header",
        "location": "Authorization"}], "code": 401, "message": "Invalid Credentials"}})
    live.add(responses.POST, path, json=_google_event("new1", attendees=[{"email": "x@agency.test",
                                                                          "responseStatus": "needsAction"}]))
    created = api.post("/api/calendar/events", as_=user, json={
        "calendarId": "primary", "summary": "Planning", "start": {"dateTime": "2026-12-03T10:00:00+11:00"},
        "end": {"dateTime": "2026-12-03T11:00:00+11:00"}, "attendees": [{"email": "x@agency.test"}]})
    assert created.status == 201 and created.json["event"]["id"] == "new1"
    inserts = [call.request for call in live.calls if call.request.url.startswith(path)]
    assert [r.headers["Authorization"] for r in inserts] == ["Bearer ya29.old", "Bearer ya29.new"]
    assert parse_qs(urlparse(inserts[1].url).query)["sendUpdates"] == ["all"]
    body = json.loads(inserts[1].body)
    assert body["attendees"] == [{"email": "x@agency.test"}] and "calendarId" not in body


def _google_error(code: int, domain: str, reason: str, message: str) -> dict:
    """`error` of a Calendar error body (https://developers.google.com/workspace/calendar/api/guides/errors)."""
    return {"errors": [{"domain": domain, "reason": reason, "message": message}], "code": code, "message": message}


@pytest.mark.parametrize("status, error, expected", [
    (404, _google_error(404, "global", "notFound", "Not Found"), 404),
    (400, _google_error(400, "calendar", "timeRangeEmpty", "The specified time range is empty."), 400),
    (403, _google_error(403, "usageLimits", "rateLimitExceeded", "Rate Limit Exceeded"), 503),
    (403, _google_error(403, "usageLimits", "userRateLimitExceeded", "User Rate Limit Exceeded"), 503),
    (403, _google_error(403, "usageLimits", "quotaExceeded", "Calendar usage limits exceeded."), 503),
    (403, _google_error(403, "calendar", "forbiddenForNonOrganizer",
                        "Shared properties can only be changed by the organizer of the event."), 403),
    (409, _google_error(409, "global", "duplicate", "The requested identifier already exists."), 409),
    (410, _google_error(410, "global", "deleted", "Resource has been deleted"), 404),
    (429, _google_error(429, "usageLimits", "rateLimitExceeded", "Rate Limit Exceeded"), 503),
    (500, _google_error(500, "global", "backendError", "Backend Error"), 502),
])
def test_provider_errors_surface_as_error_and_detail(api, live, user, status, error, expected):
    _token(live)
    live.add(responses.PATCH, f"{API}/calendars/team%40group.calendar.google.com/events/evt1", status=status,
             json={"error": error}, headers={"Retry-After": "30"} if status == 429 else {})
    answer = api.patch("/api/calendar/events/team@group.calendar.google.com/evt1", as_=user,
                       json={"start": {"dateTime": "2026-12-03T12:00:00Z"}, "end": {"dateTime": "2026-12-03T13:00:00Z"}})
    assert answer.status == expected and set(answer.json) == {"error", "detail"}
    assert error["message"] in answer.json["detail"]
    if status == 429:
        assert "30" in answer.json["detail"]


def test_a_refused_delegation_and_a_timeout(api, live, user):
    live.add(responses.POST, TOKEN, status=401, json={"error": "unauthorized_client",
                                                      "error_description": "Client is unauthorized to retrieve access tokens"})
    refused = api.get("/api/calendar/events?timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z", as_=user)
    assert refused.status == 502 and "unauthorized" in refused.json["detail"]
    clear_token_cache()
    _token(live)
    live.add(responses.DELETE, f"{API}/calendars/primary/events/evt1", body=requests.Timeout("slow"))
    slow = api.delete("/api/calendar/events/primary/evt1", as_=user)
    assert slow.status == 504 and set(slow.json) == {"error", "detail"}


def test_respond_changes_only_the_callers_status(api, live, user):
    """Only the caller's entry is patched, with `attendeesOmitted` (Google's way to update only the participant's
    response): the others are left as Google holds them (tests/providers/test_calendar_wire.py)."""
    _token(live)
    event = _google_event("inv1", organizer={"email": "boss@agency.test"}, attendees=[
        {"email": "boss@agency.test", "organizer": True, "responseStatus": "accepted"},
        {"email": "dana@agency.test", "self": True, "responseStatus": "needsAction"},
        {"email": "eve@agency.test", "responseStatus": "tentative"}])
    url = f"{API}/calendars/primary/events/inv1"
    live.add(responses.GET, url, json=event)
    live.add(responses.PATCH, url, json=event)
    answer = api.post("/api/calendar/events/primary/inv1/respond", as_=user, json={"status": "tentative"})
    assert answer.status == 200
    patch = next(call.request for call in live.calls if call.request.method == "PATCH")
    assert parse_qs(urlparse(patch.url).query)["sendUpdates"] == ["all"]
    assert json.loads(patch.body) == {"attendees": [{"email": "dana@agency.test", "responseStatus": "tentative"}],
                                      "attendeesOmitted": True}


def test_nominatim_search_policy_and_cache(api, db, user, set_env):
    set_env(PLACES_MODE="live", PLACES_BASE_URL="https://nominatim.example.org",
            PLACES_USER_AGENT="wms-test/1.0 (ops@agency.test)")
    url = "https://nominatim.example.org/search"
    # jsonv2 (https://nominatim.org/release-docs/latest/api/Output/): lat, lon and boundingbox are strings
    found = [{"place_id": 100 + n, "licence": "Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright",
              "osm_type": "way", "osm_id": 5000 + n, "lat": "-33.8", "lon": "151.2", "category": "building",
              "type": "yes", "place_rank": 30, "importance": 0.1, "addresstype": "building", "name": f"Place {n}",
              "display_name": f"Place {n}, Sydney, Australia",
              "boundingbox": ["-33.81", "-33.79", "151.19", "151.21"]} for n in range(7)]
    with responses.RequestsMock() as mock:
        mock.add(responses.GET, url, json=found)
        first = api.get("/api/calendar/places?q=Opera%20House&tz=Australia/Sydney", as_=user)
        again = api.get("/api/calendar/places?q=opera%20house&tz=Australia/Sydney", as_=user)
        assert len(mock.calls) == 1  # the second answer came from the cache
        request = mock.calls[0].request
    assert first.status == 200 and again.json == first.json
    assert first.json["results"][0] == {"id": "W5000", "label": "Place 0, Sydney, Australia"}
    assert len(first.json["results"]) == 5
    assert request.headers["User-Agent"] == "wms-test/1.0 (ops@agency.test)"
    query = parse_qs(urlparse(request.url).query)
    assert (query["countrycodes"], query["limit"], query["format"]) == (["au"], ["5"], ["jsonv2"])
    with responses.RequestsMock() as mock:
        mock.add(responses.GET, url, status=429, headers={"Retry-After": "1"})
        limited = api.get("/api/calendar/places?q=Harbour&tz=Australia/Sydney", as_=user)
    assert limited.status == 503 and limited.json["error"]


def test_event_paging_stops_at_its_bound(live, user, monkeypatch):
    """A provider that always names a next page is read MAX_PAGES times, never endlessly, and the listing is then a
    502 (as the ledger's and the planner's bounds), never the pages read answered as the whole list. (It was: the
    events of the MAX_PAGES pages, silently short.)"""
    from chalicelib.providers.calendar import live as calendar_live

    monkeypatch.setattr(calendar_live, "MAX_PAGES", 3)
    _token(live)
    served = []

    def page(request):
        served.append(request.url)
        if len(served) > 6:
            raise requests.ConnectionError("the test stops an endless listing")
        n = len(served)
        return 200, {}, json.dumps({"kind": "calendar#events", "items": [_google_event(f"e{n}")],
                                    "nextPageToken": f"p{n + 1}"})

    live.add_callback(responses.GET, f"{API}/calendars/primary/events", callback=page,
                      content_type="application/json")
    adapter = calendar_live.GoogleCalendar(client_email=SA, private_key=PEM)
    with pytest.raises(calendar_live.CalendarError, match="too many pages") as raised:
        adapter.list_events(user.email, "primary", time_min="2026-12-01T00:00:00Z", time_max="2026-12-31T00:00:00Z")
    assert raised.value.status == 502 and "more than 3 pages" in raised.value.extra["detail"]
    assert len(served) == 3 and parse_qs(urlparse(served[-1]).query)["pageToken"] == ["p3"]


def test_an_events_listing_past_the_page_bound_is_502(api, live, user, monkeypatch):
    """Through GET /api/calendar/events: `{error, detail}` with 502, not the events of the pages read."""
    from chalicelib.providers.calendar import live as calendar_live

    monkeypatch.setattr(calendar_live, "MAX_PAGES", 2)
    _token(live)
    live.add(responses.GET, f"{API}/calendars/primary/events",
             json={"kind": "calendar#events", "items": [_google_event("e1")], "nextPageToken": "more"})
    answer = api.get("/api/calendar/events?timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z", as_=user)
    assert answer.status == 502 and set(answer.json) == {"error", "detail"}, answer.json
    assert "too many pages" in answer.json["error"]


def test_nominatim_timeout_is_504_unreachable_and_errors_502(monkeypatch):
    from chalicelib.core.errors import BadGateway, GatewayTimeout
    from chalicelib.providers.places import live as places_live

    monkeypatch.setattr(places_live, "_throttle", lambda: None)
    places = places_live.NominatimPlaces(base_url="https://nominatim.example.org",
                                         user_agent="wms-test/1.0 (ops@agency.test)")
    url = "https://nominatim.example.org/search"
    with responses.RequestsMock() as mock:
        mock.add(responses.GET, url, body=requests.ReadTimeout("slow"))
        with pytest.raises(GatewayTimeout):
            places.search("Opera House", country="au")
        mock.replace(responses.GET, url, body=requests.ConnectionError("refused"))
        with pytest.raises(BadGateway, match="unreachable"):
            places.search("Opera House", country="au")
        mock.replace(responses.GET, url, status=503, body="<html>Service Unavailable</html>")
        with pytest.raises(BadGateway, match="HTTP 503"):
            places.search("Opera House", country="au")
        # Nominatim's JSON error body (src/nominatim_api/v1/format.py): its message is named
        mock.replace(responses.GET, url, status=400, json={"error": {"code": 400, "message": "Nothing to search for."}})
        with pytest.raises(BadGateway, match="HTTP 400: Nothing to search for."):
            places.search("Opera House", country="au")
        # a single-result answer's `{"error": "Unable to geocode"}` (format_json.py) where the array is expected
        mock.replace(responses.GET, url, json={"error": "Unable to geocode"})
        with pytest.raises(BadGateway, match="unexpected body: Unable to geocode"):
            places.search("Opera House", country=None)
        assert "countrycodes" not in parse_qs(urlparse(mock.calls[-1].request.url).query)
