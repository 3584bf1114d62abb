"""Session 29, code no test ran in the calendar adapters: the live adapter's calendar list, a token endpoint
or an error answered without JSON or with an error string, a 204, and an access token refused twice (Google
Calendar API v3 through the HTTP interface, as tests/providers/test_calendar_wire.py); the live mode without a
service account; and the sandbox's refusal of an event time it cannot read."""
import pytest
import responses

from chalicelib.providers.calendar import get_calendar, is_configured
from chalicelib.providers.calendar.base import CalendarError, client_event_id
from chalicelib.providers.calendar.sandbox import SandboxCalendar
from tests.providers.test_calendar_wire import API, PEM, SA, TOKEN, _invitation, live, user  # noqa: F401 - fixtures


def test_the_live_calendar_lists_the_primary_and_the_team_calendar(api, live, user):  # noqa: F811
    answer = api.get("/api/calendar/calendars", as_=user)
    assert answer.status == 200
    assert answer.json == {"calendars": [{"id": "primary", "label": "dana@agency.test"},
                                         {"id": "team@group.calendar.google.com", "label": "Team calendar"}]}
    assert len(live.calls) == 0  # no call: the list is the service account's own two


def test_live_without_a_service_account_has_no_calendars(api, set_env, user):  # noqa: F811
    set_env(CALENDAR_MODE="live", CALENDAR_SERVICE_ACCOUNT_EMAIL=SA, CALENDAR_PRIVATE_KEY=None)
    assert get_calendar() is None and not is_configured()
    assert api.get("/api/calendar/calendars", as_=user).json == {"calendars": []}
    assert api.delete("/api/calendar/events/primary/ev1", as_=user).status == 503


def test_a_token_endpoint_answering_without_json_is_an_authorisation_failure(api, live, user):  # noqa: F811
    live.replace(responses.POST, TOKEN, status=503, body="<html>Service Unavailable</html>")
    answer = api.delete("/api/calendar/events/primary/ev1", as_=user)
    assert answer.status == 502
    assert answer.json == {"error": "Calendar authorisation failed", "detail": "HTTP 503"}


def test_an_error_without_json_or_as_a_string(api, live, user):  # noqa: F811
    url = f"{API}/calendars/primary/events/ev1"
    live.add(responses.DELETE, url, status=500, body="<html>oops</html>")
    answer = api.delete("/api/calendar/events/primary/ev1", as_=user)
    assert answer.status == 502 and answer.json == {"error": "Calendar provider request failed", "detail": "HTTP 500"}
    live.replace(responses.DELETE, url, status=400, json={"error": "invalid_request"})
    answer = api.delete("/api/calendar/events/primary/ev1", as_=user)
    assert answer.status == 400 and answer.json["detail"] == "invalid_request"


def test_a_delete_answered_204_is_done(api, live, user):  # noqa: F811
    live.add(responses.DELETE, f"{API}/calendars/primary/events/ev1", status=204)
    answer = api.delete("/api/calendar/events/primary/ev1", as_=user)
    assert answer.status == 200 and answer.json == {"ok": True}


def test_an_access_token_refused_twice_is_the_providers_502(api, live, user):  # noqa: F811
    """A 401 gets a fresh token and one more try; a second 401 is the provider's failure with Google's message
    (the "refused twice" error after the loop was never reached: removed in session 29)."""
    url = f"{API}/calendars/primary/events/ev1"
    live.add(responses.DELETE, url, status=401, json={"error": {"code": 401, "message": "Invalid Credentials"}})
    answer = api.delete("/api/calendar/events/primary/ev1", as_=user)
    assert answer.status == 502
    assert answer.json == {"error": "Calendar provider request failed", "detail": "Invalid Credentials"}
    assert [c.request.method for c in live.calls].count("POST") == 2  # a fresh token for the second try


def test_a_client_event_id_of_a_key_that_is_no_uuid_is_a_digest():
    made = client_event_id("wmsl", "not-a-uuid")
    assert made.startswith("wmsl") and len(made) == 36 and made == client_event_id("wmsl", "not-a-uuid")


@pytest.mark.parametrize("start, detail", [
    ({"timeZone": "Australia/Sydney"}, "Missing start time."),
    ("2026-12-01T10:00:00Z", "Missing start time."),
    ({"dateTime": "2026-12-01T10:00:00", "timeZone": "Mars/Olympus"}, "Invalid start time."),
    ({"date": "first of December"}, "Invalid start time."),
])
def test_the_sandbox_refuses_an_event_time_it_cannot_read_as_google_does(db, start, detail):
    with pytest.raises(CalendarError) as raised:
        SandboxCalendar(db=db).insert_event("dana@agency.test", "primary", {
            "summary": "x", "start": start, "end": {"dateTime": "2026-12-01T11:00:00Z"}})
    assert raised.value.status == 400 and raised.value.extra == {"detail": detail}


def test_the_sandbox_drops_an_attendee_without_an_email(db):
    made = SandboxCalendar(db=db).insert_event("dana@agency.test", "primary", {
        "summary": "x", "start": {"dateTime": "2026-12-01T10:00:00Z"}, "end": {"dateTime": "2026-12-01T11:00:00Z"},
        "attendees": [{"displayName": "No address"}, {"email": " Eve@Agency.test "}]})
    assert [a["email"] for a in made["attendees"]] == ["eve@agency.test"]


def test_the_sandbox_without_a_session_opens_its_own():
    calendar = SandboxCalendar()
    try:
        assert calendar.db is not None
    finally:
        calendar.db.close()
