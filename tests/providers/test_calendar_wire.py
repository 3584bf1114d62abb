"""The live calendar adapter (Google Calendar API v3) against the wire format Google documents, through the HTTP
interface. Mocked bodies follow:
- https://developers.google.com/workspace/calendar/api/v3/reference/events (Event resource: attendees[] with
  email, responseStatus, self, organizer; `attendeesOmitted`: "When updating an event, this can be used to only
  update the participant's response")
- https://developers.google.com/workspace/calendar/api/v3/reference/events/list (Events: kind, items,
  nextPageToken)
- https://developers.google.com/workspace/calendar/api/guides/errors (error bodies)
"""
import json
from urllib.parse import parse_qs, urlparse

import pytest
import responses
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from chalicelib.providers.calendar.live import clear_token_cache
from tests.factories import grant, make_user

TOKEN = "https://oauth2.googleapis.com/token"
API = "https://www.googleapis.com/calendar/v3"
SA = "wms-calendar@agency-project.iam.gserviceaccount.com"
PEM = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()


@pytest.fixture
def live(set_env):
    set_env(CALENDAR_MODE="live", CALENDAR_SERVICE_ACCOUNT_EMAIL=SA, CALENDAR_PRIVATE_KEY=PEM,
            CALENDAR_TEAM_CALENDAR_ID="team@group.calendar.google.com")
    clear_token_cache()
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        # https://developers.google.com/identity/protocols/oauth2/service-account#httprest
        mock.add(responses.POST, TOKEN, json={"access_token": "ya29.c.test", "expires_in": 3599,
                                              "token_type": "Bearer"})
        yield mock
    clear_token_cache()


@pytest.fixture
def user(db):
    user = make_user(db, email="dana@agency.test", name="Dana")
    grant(db, user, "calendar", "update")
    return user


def _invitation(attendees, **extra) -> dict:
    """An Event resource as events.get answers it to an invited attendee."""
    return {"kind": "calendar#event", "etag": "\"3391234567890000\"", "id": "inv1", "status": "confirmed",
            "htmlLink": "https://www.google.com/calendar/event?eid=aW52MQ", "created": "2026-11-20T01:00:00.000Z",
            "updated": "2026-11-20T01:00:00.000Z", "summary": "Quarterly review",
            "creator": {"email": "boss@agency.test"}, "organizer": {"email": "boss@agency.test"},
            "start": {"dateTime": "2026-12-03T10:00:00+11:00", "timeZone": "Australia/Sydney"},
            "end": {"dateTime": "2026-12-03T11:00:00+11:00", "timeZone": "Australia/Sydney"},
            "iCalUID": "inv1@google.com", "sequence": 0, "attendees": attendees, **extra}


def test_respond_patches_only_the_callers_entry_with_attendees_omitted(api, live, user):
    """The event was read with a truncated attendee list (`attendeesOmitted: true`): patching that list back
    would drop the attendees Google left out. Only the caller's entry is sent, with attendeesOmitted."""
    url = f"{API}/calendars/primary/events/inv1"
    read = _invitation([{"email": "dana@agency.test", "self": True, "responseStatus": "needsAction"}],
                       attendeesOmitted=True)
    live.add(responses.GET, url, json=read)
    answered = _invitation([{"email": "boss@agency.test", "organizer": True, "responseStatus": "accepted"},
                            {"email": "dana@agency.test", "self": True, "responseStatus": "declined"},
                            {"email": "eve@agency.test", "responseStatus": "needsAction"}])
    live.add(responses.PATCH, url, json=answered)
    answer = api.post("/api/calendar/events/primary/inv1/respond", as_=user, json={"status": "declined"})
    assert answer.status == 200, answer.json
    patch = next(call.request for call in live.calls if call.request.method == "PATCH")
    assert parse_qs(urlparse(patch.url).query)["sendUpdates"] == ["all"]
    assert patch.headers["Authorization"] == "Bearer ya29.c.test"
    assert json.loads(patch.body) == {"attendees": [{"email": "dana@agency.test", "responseStatus": "declined"}],
                                      "attendeesOmitted": True}


def test_an_organiser_responding_keeps_the_other_attendees_out_of_the_patch(api, live, user):
    url = f"{API}/calendars/primary/events/own1"
    event = {**_invitation([{"email": "dana@agency.test", "organizer": True, "self": True,
                             "responseStatus": "accepted", "displayName": "Dana"},
                            {"email": "eve@agency.test", "responseStatus": "needsAction"}]),
             "id": "own1", "organizer": {"email": "dana@agency.test", "self": True}}
    live.add(responses.GET, url, json=event)
    live.add(responses.PATCH, url, json=event)
    answer = api.post("/api/calendar/events/primary/own1/respond", as_=user, json={"status": "tentative"})
    assert answer.status == 200, answer.json
    patch = next(call.request for call in live.calls if call.request.method == "PATCH")
    assert json.loads(patch.body) == {"attendees": [{"email": "dana@agency.test", "responseStatus": "tentative",
                                                     "displayName": "Dana"}], "attendeesOmitted": True}


def test_a_caller_who_is_not_invited_is_refused_without_a_patch(api, live, user):
    url = f"{API}/calendars/primary/events/inv1"
    live.add(responses.GET, url, json=_invitation([{"email": "eve@agency.test", "responseStatus": "needsAction"}]))
    answer = api.post("/api/calendar/events/primary/inv1/respond", as_=user, json={"status": "accepted"})
    assert answer.status == 400 and set(answer.json) == {"error", "detail"}
    assert not any(call.request.method == "PATCH" for call in live.calls)


@pytest.mark.parametrize("calendar_id,event_id", [("..", None), ("primary", ".."), (".", "inv1")])
def test_a_calendar_or_event_id_of_dots_alone_is_refused_before_any_call(live, calendar_id, event_id):
    """quote leaves dots and requests removes dot segments: `/calendars/../events` reached `/events` with the
    service account's token (session 22's injection audit); `providers.http.segment` refuses it (400)."""
    from chalicelib.core.errors import BadRequest
    from chalicelib.providers.calendar.live import GoogleCalendar

    with pytest.raises(BadRequest, match="not an id"):
        GoogleCalendar._events(calendar_id, event_id)


def test_ids_with_slashes_stay_one_segment(live):
    from chalicelib.providers.calendar.live import GoogleCalendar

    assert GoogleCalendar._events("team@group.calendar.google.com", "a/b") == (
        "/calendars/team%40group.calendar.google.com/events/a%2Fb")
