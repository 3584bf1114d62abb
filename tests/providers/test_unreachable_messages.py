"""A provider that cannot be reached is a 502 (504 for a timeout) naming only the exception's type (session 22,
audit: information disclosure): the transport's text (`HTTPConnectionPool(host='...', port=...): Max retries
exceeded with url: ...`) names internal hosts, ports and full URLs, and goes to the server's log only.
`responses` raises the transport errors with such a text; boto3's (SES) are raised by a stubbed client."""
import logging

import pytest
import requests
import responses

from chalicelib.core.errors import BadGateway, GatewayTimeout
from tests.factories import grant, make_user

HOST = "geo-search.internal.corp"


def _refused(host: str, path: str = "/search") -> requests.ConnectionError:
    """The text urllib3 gives a refused connection: host, port and the full URL."""
    return requests.ConnectionError(
        f"HTTPConnectionPool(host='{host}', port=8080): Max retries exceeded with url: {path}?q=Sydney "
        "(Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f>: Failed to establish "
        "a new connection: [Errno 111] Connection refused'))")


def _timed_out(host: str) -> requests.ReadTimeout:
    return requests.ReadTimeout(f"HTTPConnectionPool(host='{host}', port=8080): Read timed out. (read timeout=8)")


def _logged(caplog, host: str) -> bool:
    return any(host in record.getMessage() for record in caplog.records)


# ------------------------------------------------------------------ places (GET /api/calendar/places)

@pytest.fixture
def places(set_env, monkeypatch):
    from chalicelib.providers.places import live as places_live

    monkeypatch.setattr(places_live, "_throttle", lambda: None)
    set_env(PLACES_MODE="live", PLACES_BASE_URL=f"http://{HOST}:8080", PLACES_USER_AGENT="wms-test ops@agency.test")
    with responses.RequestsMock() as mock:
        yield mock


@pytest.fixture
def calendar_user(db):
    user = make_user(db, email="dana@agency.test", name="Dana")
    grant(db, user, "calendar", "update")
    return user


def test_place_search_unreachable_names_no_internal_host(api, calendar_user, places, caplog):
    caplog.set_level(logging.WARNING)
    places.add(responses.GET, f"http://{HOST}:8080/search", body=_refused(HOST))
    answer = api.get("/api/calendar/places?q=Sydney", as_=calendar_user)
    assert answer.status == 502, answer
    assert answer.json == {"error": "Place search unreachable (ConnectionError)"}
    assert HOST not in answer.body.decode() and "8080" not in answer.body.decode()
    assert _logged(caplog, HOST)  # the full text is the server's


# ------------------------------------------------------------------ calendar (Google, its URLs overridden)

CAL_HOST = "calendar-proxy.internal.corp"


@pytest.fixture
def calendar(set_env):
    from tests.areas.calendar.test_google_live import PEM, SA
    from chalicelib.providers.calendar.live import clear_token_cache

    set_env(CALENDAR_MODE="live", CALENDAR_SERVICE_ACCOUNT_EMAIL=SA, CALENDAR_PRIVATE_KEY=PEM.replace("\n", "\\n"),
            CALENDAR_TEAM_CALENDAR_ID="team@group.calendar.google.com",
            CALENDAR_API_URL=f"http://{CAL_HOST}:8080/calendar/v3", CALENDAR_TOKEN_URL=f"http://{CAL_HOST}:8080/token")
    clear_token_cache()
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock
    clear_token_cache()


EVENTS = "/api/calendar/events?timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z"
TOKEN_URL = f"http://{CAL_HOST}:8080/token"
PRIMARY = f"http://{CAL_HOST}:8080/calendar/v3/calendars/primary/events"


@pytest.mark.parametrize("failure, status, detail", [
    (_refused(CAL_HOST, "/token"), 502, "ConnectionError"), (_timed_out(CAL_HOST), 504, "ReadTimeout")])
def test_calendar_token_exchange_failure_names_no_internal_host(api, calendar_user, calendar, caplog, failure,
                                                                 status, detail):
    caplog.set_level(logging.WARNING)
    calendar.add(responses.POST, TOKEN_URL, body=failure)
    answer = api.get(EVENTS, as_=calendar_user)
    assert answer.status == status, answer
    assert answer.json["detail"] == detail, answer.json
    assert CAL_HOST not in answer.body.decode()
    assert _logged(caplog, CAL_HOST)


@pytest.mark.parametrize("failure, status, detail", [
    (_refused(CAL_HOST, "/calendar/v3"), 502, "ConnectionError"), (_timed_out(CAL_HOST), 504, "ReadTimeout")])
def test_calendar_api_failure_names_no_internal_host(api, calendar_user, calendar, caplog, failure, status, detail):
    caplog.set_level(logging.WARNING)
    calendar.add(responses.POST, TOKEN_URL, json={"access_token": "ya29.t", "expires_in": 3600})
    calendar.add(responses.GET, PRIMARY, body=failure)
    answer = api.get(EVENTS, as_=calendar_user)
    assert answer.status == status, answer
    assert answer.json["detail"] == detail, answer.json
    assert CAL_HOST not in answer.body.decode()
    assert _logged(caplog, CAL_HOST)


def test_calendar_answer_without_json_names_the_status_not_the_parser(api, calendar_user, calendar):
    calendar.add(responses.POST, TOKEN_URL, json={"access_token": "ya29.t", "expires_in": 3600})
    calendar.add(responses.GET, PRIMARY, body="<html>proxy error</html>", status=200)
    answer = api.get(EVENTS, as_=calendar_user)
    assert answer.status == 502, answer
    assert answer.json == {"error": "Calendar provider answered without JSON", "detail": "HTTP 200"}


# ------------------------------------------------------------------ meeting notes (GET /api/meetings/:id/transcript)

NOTES_HOST = "fireflies-proxy.internal.corp"


def test_meeting_notes_unreachable_names_no_internal_host(api, db, employee, set_env, caplog):
    from tests.areas.meetings.factories import make_meeting

    caplog.set_level(logging.WARNING)
    url = f"http://{NOTES_HOST}:8080/graphql"
    set_env(MEETNOTES_MODE="live", MEETNOTES_API_KEY="ff-test-key", MEETNOTES_API_URL=url)
    meeting = make_meeting(db, id="01JFFDOWN", attendees=[employee])
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, url, body=_refused(NOTES_HOST, "/graphql"))
        answer = api.get(f"/api/meetings/{meeting.id}/transcript", as_=employee)
    assert answer.status == 502, answer
    assert answer.json == {"error": "Meeting notes provider unreachable (ConnectionError)"}
    assert NOTES_HOST not in answer.body.decode()
    assert _logged(caplog, NOTES_HOST)


# ------------------------------------------------------------------ e-mail (SES through boto3)

def test_ses_unreachable_names_no_endpoint(monkeypatch, caplog):
    import boto3
    from botocore.exceptions import EndpointConnectionError

    from chalicelib.providers.mail import live as mail_live

    caplog.set_level(logging.WARNING)
    client = boto3.client("sesv2", region_name="ap-southeast-2", aws_access_key_id="AKIDEXAMPLE",
                          aws_secret_access_key="secret")
    monkeypatch.setattr(mail_live, "client", lambda service: client)

    def unreachable(**kwargs):
        raise EndpointConnectionError(endpoint_url="https://vpce-0abc.email.ap-southeast-2.vpce.internal.corp")

    monkeypatch.setattr(client, "send_email", unreachable)
    with pytest.raises(BadGateway) as raised:
        mail_live.SESMail(from_address="notifications@agency.test").send(to=["ann@agency.test"], subject="Hi",
                                                                          text="Body")
    assert raised.value.message == "E-mail provider unreachable (EndpointConnectionError)"
    assert _logged(caplog, "vpce.internal.corp")


# ------------------------------------------------------------------ web push (pywebpush)

PUSH = "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk-subscription"


@pytest.fixture
def subscription():
    from tests.providers.test_webpush_live import _b64, _keys

    _, p256dh = _keys()
    return {"endpoint": PUSH, "keys": {"p256dh": p256dh, "auth": _b64(b"0123456789abcdef")}}


@responses.activate
def test_push_unreachable_names_no_host(subscription, caplog):
    from chalicelib.providers.push.live import WebPush
    from tests.providers.test_webpush_live import _keys

    caplog.set_level(logging.WARNING)
    private, public = _keys()
    responses.post(PUSH, body=_refused("egress-proxy.internal.corp", "/wpush/v2"))
    with pytest.raises(BadGateway) as raised:
        WebPush(public_key=public, private_key=private, subject="mailto:ops@agency.test").send(
            subscription=subscription, payload={"title": "Hello"})
    assert raised.value.message == "Push service unreachable (ConnectionError)"
    assert _logged(caplog, "egress-proxy.internal.corp")


def test_push_key_failure_names_the_type_only(subscription, caplog):
    from chalicelib.providers.push.live import WebPush
    from tests.providers.test_webpush_live import _keys

    caplog.set_level(logging.WARNING)
    _, public = _keys()
    with responses.RequestsMock(assert_all_requests_are_fired=False):
        with pytest.raises(BadGateway) as raised:
            WebPush(public_key=public, private_key="c2VjcmV0LWJ1dC1ub3QtYS1rZXk", subject="mailto:ops@agency.test").send(
                subscription=subscription, payload={"title": "Hello"})
    message = raised.value.message
    assert message.startswith("Push message could not be encrypted or signed (") and message.endswith(")"), message
    assert ":" not in message, message  # the type's name, not the library's text
    assert caplog.records
