"""Session 29, Google Calendar answers outside their documented shape (the token endpoint's
`{access_token, expires_in, token_type}`, an error's `{"error": {code, message, errors[]}}`, an event or an
Events listing as an object with `items`) are the provider's failure, a 502 naming it, never a 500; an
`expires_in` that cannot be read is Google's documented hour. Through the HTTP interface, as
tests/providers/test_calendar_wire.py (whose fixtures are reused)."""
import pytest
import responses

from tests.providers.test_calendar_wire import API, TOKEN, live, user  # noqa: F401 - fixtures

EVENT = f"{API}/calendars/primary/events/ev1"
LIST = "/api/calendar/events?timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-08T00:00:00Z"


@pytest.mark.parametrize("body", [["ya29.c.test"], "ya29.c.test", 3599, {"access_token": ["ya29"]}])
def test_a_token_answer_that_is_not_an_object_with_a_token_is_a_502(api, live, user, body):  # noqa: F811
    """Session 29: `.get` on a JSON list or string raised AttributeError, a 500."""
    live.replace(responses.POST, TOKEN, json=body)
    answer = api.delete("/api/calendar/events/primary/ev1", as_=user)
    assert answer.status == 502, answer.json
    assert answer.json == {"error": "Calendar authorisation failed", "detail": "HTTP 200"}


@pytest.mark.parametrize("expires_in", ["soon", None, "1e999", True, {"s": 1}])
def test_an_expires_in_that_cannot_be_read_is_an_hour(api, live, user, expires_in):  # noqa: F811
    """Session 29: int(expires_in) raised ValueError (a word), TypeError (null) or OverflowError (1e999, which
    float reads as inf), a 500 on a call whose token answer was otherwise good."""
    live.replace(responses.POST, TOKEN, json={"access_token": "ya29.c.test", "expires_in": expires_in,
                                              "token_type": "Bearer"})
    live.add(responses.DELETE, EVENT, status=204)
    answer = api.delete("/api/calendar/events/primary/ev1", as_=user)
    assert answer.status == 200 and answer.json == {"ok": True}
    live.add(responses.DELETE, EVENT, status=204)
    assert api.delete("/api/calendar/events/primary/ev1", as_=user).status == 200
    assert [c.request.method for c in live.calls].count("POST") == 1  # the token kept (an hour, less a minute)


@pytest.mark.parametrize("body", [[{"error": {"message": "x"}}], "Bad Request", 7, {"error": 7},
                                  {"error": ["Invalid"]}, {"error": {"message": "Invalid", "errors": 5}}])
def test_an_error_answer_outside_googles_shape_keeps_its_status(api, live, user, body):  # noqa: F811
    """Session 29: `response.json().get("error")` on a list, string or number, and `error.get` on an `error` that
    is neither an object nor a string, raised AttributeError (`errors` that is no list: TypeError), a 500."""
    live.add(responses.DELETE, EVENT, status=400, json=body)
    answer = api.delete("/api/calendar/events/primary/ev1", as_=user)
    assert answer.status == 400, answer.json
    assert answer.json["error"] == "Calendar provider refused the request"


def test_an_event_or_a_listing_that_is_not_an_object_is_a_502(api, live, user):  # noqa: F811
    """Session 29: an Events listing answered as a JSON list made list_events' `.get("items")` a 500, and an
    `items` that is no list of objects was extended into the events (a string, one event a character)."""
    listing = f"{API}/calendars/primary/events"
    live.add(responses.GET, listing, json=[{"id": "ev1"}])
    answer = api.get(LIST, as_=user)
    assert answer.status == 502, answer.json
    assert answer.json == {"error": "Calendar provider answered without a JSON object", "detail": "HTTP 200"}
    live.replace(responses.GET, listing, json={"kind": "calendar#events", "items": "ev1"})
    answer = api.get(LIST, as_=user)
    assert answer.status == 502, answer.json
    assert answer.json["error"] == "Calendar provider answered events that are not a list of objects"
    live.replace(responses.GET, listing, json={"kind": "calendar#events", "items": ["ev1"]})
    assert api.get(LIST, as_=user).status == 502
    live.add(responses.GET, f"{API}/calendars/primary/events/inv1", json=["ev1"])
    answer = api.post("/api/calendar/events/primary/inv1/respond", as_=user, json={"status": "accepted"})
    assert answer.status == 502, answer.json
