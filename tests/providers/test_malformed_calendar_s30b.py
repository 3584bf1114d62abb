"""Session 30, Google Calendar answers outside the Events resource's documented shape
(https://developers.google.com/workspace/calendar/api/v3/reference/events#resource and events/list: `nextPageToken`
a string; an event's `start` / `end` objects with `date`, `dateTime`, `timeZone` strings, `organizer` and `creator`
objects with an `email` string, `attendees` a list of objects with an `email` string, `id` a string) are the
provider's failure, a 502 naming the field, never a 500: a `nextPageToken` that is no string was sent back to Google
as it was (a list became several `pageToken`s); the calendar area's `start.get`, `(email or "").lower()` and
`dict(attendee)` on such values were 500s on the event list and the response route; an insert answered without an
id failed the leave integration with a KeyError. Through the HTTP interface, with tests/providers/test_calendar_wire
.py's fixtures."""
import pytest
import responses

from tests.providers.test_calendar_wire import API, _invitation, live, user  # noqa: F401 - fixtures

LISTING = f"{API}/calendars/primary/events"
LIST = "/api/calendar/events?timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-08T00:00:00Z"
DANA = {"email": "dana@agency.test", "self": True, "responseStatus": "needsAction"}


@pytest.mark.parametrize("token", [{"t": "next"}, ["p2", "p3"], 2, True])
def test_a_page_token_that_is_no_string_is_a_502_never_sent_back(api, live, user, token):  # noqa: F811
    live.add(responses.GET, LISTING, json={"kind": "calendar#events", "items": [], "nextPageToken": token})
    live.add(responses.GET, LISTING, json={"kind": "calendar#events", "items": []})
    answer = api.get(LIST, as_=user)
    assert answer.status == 502, answer.json
    assert answer.json["error"] == "Calendar provider answered a page token that cannot be read"
    assert len([c for c in live.calls if c.request.method == "GET"]) == 1


def test_a_string_page_token_is_followed_as_before(api, live, user):  # noqa: F811
    live.add(responses.GET, LISTING, json={"items": [_invitation([DANA])], "nextPageToken": "p2"})
    live.add(responses.GET, LISTING, json={"items": []})
    answer = api.get(LIST, as_=user)
    assert answer.status == 200, answer.json
    gets = [c.request.url for c in live.calls if c.request.method == "GET"]
    assert len(gets) == 2 and "pageToken=p2" in gets[1]


BAD_EVENTS = [
    ({"start": "2026-12-03"}, "start"),
    ({"start": {"dateTime": 20261203}}, "start.dateTime"),
    ({"end": ["2026-12-03"]}, "end"),
    ({"organizer": "boss@agency.test"}, "organizer"),
    ({"organizer": {"email": 7}}, "organizer.email"),
    ({"creator": ["boss"]}, "creator"),
    ({"attendees": "dana@agency.test"}, "attendees"),
    ({"attendees": ["dana@agency.test"]}, "attendees"),
    ({"attendees": [{**DANA, "email": ["dana@agency.test"]}]}, "attendees.email"),
    ({"id": {"id": "inv1"}}, "id"),
]


@pytest.mark.parametrize("change, field", BAD_EVENTS)
def test_a_listed_event_outside_its_shape_is_a_502(api, live, user, change, field):  # noqa: F811
    live.add(responses.GET, LISTING, json={"items": [_invitation([DANA]), {**_invitation([DANA]), **change}]})
    answer = api.get(LIST, as_=user)
    assert answer.status == 502, answer.json
    assert answer.json["error"] == "Calendar provider answered an event outside its documented shape"
    assert answer.json["detail"].startswith("event 2 from ") and answer.json["detail"].endswith(
        f": {field} cannot be read"), answer.json


@pytest.mark.parametrize("change, field", BAD_EVENTS)
def test_an_event_read_outside_its_shape_is_a_502_on_the_response(api, live, user, change, field):  # noqa: F811
    url = f"{API}/calendars/primary/events/inv1"
    live.add(responses.GET, url, json={**_invitation([DANA]), **change})
    live.add(responses.PATCH, url, json=_invitation([DANA]))
    answer = api.post("/api/calendar/events/primary/inv1/respond", as_=user, json={"status": "accepted"})
    assert answer.status == 502, answer.json
    assert answer.json == {"error": "Calendar provider answered an event outside its documented shape",
                           "detail": f"the event: {field} cannot be read"}
    assert not any(call.request.method == "PATCH" for call in live.calls)


def test_an_event_made_without_an_id_is_a_502(api, live, user):  # noqa: F811
    live.add(responses.POST, LISTING, json={"kind": "calendar#event", "status": "confirmed"})
    answer = api.post("/api/calendar/events", as_=user, json={
        "calendarId": "primary", "summary": "Sync", "start": {"dateTime": "2026-12-03T10:00:00+11:00"},
        "end": {"dateTime": "2026-12-03T11:00:00+11:00"}})
    assert answer.status == 502, answer.json
    assert answer.json == {"error": "Calendar provider answered no event id", "detail": "the event made"}
