"""The live meeting-notes adapter (Fireflies GraphQL API) against the wire format Fireflies documents, through the
HTTP interface: a rate limit named in the GraphQL error's `extensions.metadata.retryAfter`, and the summary's
`keywords` as the String schema/summary documents. Mocked bodies follow:
- https://docs.fireflies.ai/fundamentals/errors (errors array: message, code, friendly, extensions)
- https://docs.fireflies.ai/miscellaneous/error-codes (too_many_requests: "The field extensions.metadata.retryAfter
  mentions the retryAfter time"; object_not_found with extensions.status 404)
- https://docs.fireflies.ai/schema/transcript, https://docs.fireflies.ai/schema/summary
"""
import json
import time
from datetime import datetime, timezone

import pytest
import responses

from chalicelib.providers.meetnotes import get_meetnotes
from tests.areas.meetings.factories import make_meeting

URL = "https://api.fireflies.ai/graphql"


@pytest.fixture
def live(set_env):
    set_env(MEETNOTES_MODE="live", MEETNOTES_API_KEY="ff-test-key")
    with responses.RequestsMock() as mock:
        yield mock


def _too_many(retry_after) -> dict:
    # https://docs.fireflies.ai/miscellaneous/error-codes#too_many_requests
    return {"data": None, "errors": [{
        "message": "Too many requests. Please retry after some time", "code": "too_many_requests", "friendly": True,
        "extensions": {"code": "too_many_requests", "status": 429, "metadata": {"retryAfter": retry_after},
                       "helpUrls": ["https://docs.fireflies.ai/miscellaneous/error-codes#too_many_requests"]}}]}


@pytest.mark.parametrize("status", [200, 429])
def test_a_rate_limit_names_fireflies_retry_after(api, db, employee, live, status):
    """No Retry-After header: the wait comes from extensions.metadata.retryAfter (here epoch milliseconds, 90 s
    ahead), as a 503 naming it and carrying `retry_after`; the transcript stays unfetched."""
    meeting = make_meeting(db, id="01JFFRATE", attendees=[employee])
    live.add(responses.POST, URL, status=status, json=_too_many(int((time.time() + 90) * 1000)))
    answer = api.get(f"/api/meetings/{meeting.id}/transcript", as_=employee)
    assert answer.status == 503, answer.json
    assert 85 <= answer.json["retry_after"] <= 91
    assert f"{answer.json['retry_after']} s" in answer.json["error"]
    sent = json.loads(live.calls[0].request.body)
    assert sent["variables"] == {"transcriptId": "01JFFRATE"}
    assert live.calls[0].request.headers["Authorization"] == "Bearer ff-test-key"


def test_a_retry_after_in_seconds_is_read_too(api, db, employee, live):
    meeting = make_meeting(db, id="01JFFRATE2", attendees=[employee])
    live.add(responses.POST, URL, json=_too_many(45))
    answer = api.get(f"/api/meetings/{meeting.id}/transcript", as_=employee)
    assert answer.status == 503 and answer.json["retry_after"] == 45


def test_a_retry_after_header_as_an_http_date_is_read_as_one(api, db, employee, live):
    """Without retryAfter in the body, the header is read as every adapter reads it (providers.http.retry_after):
    an HTTP-date too (RFC 9110), which the adapter's own reader took for unreadable (a minute)."""
    from email.utils import format_datetime
    from datetime import timedelta

    meeting = make_meeting(db, id="01JFFRATE3", attendees=[employee])
    when = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=20), usegmt=True)
    live.add(responses.POST, URL, status=429, headers={"Retry-After": when},
             json={"data": None, "errors": [{"message": "Too many requests", "code": "too_many_requests"}]})
    answer = api.get(f"/api/meetings/{meeting.id}/transcript", as_=employee)
    assert answer.status == 503 and 15 <= answer.json["retry_after"] <= 21, answer.json


def test_object_not_found_by_its_extensions_status(api, db, employee, live):
    """https://docs.fireflies.ai/miscellaneous/error-codes#object_not_found: code and extensions.status 404."""
    meeting = make_meeting(db, id="01JFFGONE", attendees=[employee])
    live.add(responses.POST, URL, json={"data": {"transcript": None}, "errors": [{
        "message": "Transcript does not exist", "code": "object_not_found", "friendly": True,
        "extensions": {"code": "object_not_found", "status": 404, "metadata": {"objectType": "Transcript"}}}]})
    assert api.get(f"/api/meetings/{meeting.id}/transcript", as_=employee).status == 404


def test_keywords_documented_as_a_string_are_split(live):
    """https://docs.fireflies.ai/schema/summary documents `keywords` (and `action_items`) as Strings."""
    live.add(responses.POST, URL, json={"data": {"transcripts": [{
        "id": "01JFFKW", "title": "Pricing call", "date": 1_763_000_000_000, "duration": 31.5,
        "organizer_email": "Pat@Agency.test",
        "meeting_attendees": [{"displayName": "Pat", "email": "pat@agency.test", "name": "Pat"}],
        "summary": {"overview": "Talked pricing.", "action_items": "**Pat**\nSend the quote (02:10)",
                    "keywords": "pricing, proposal\nGlobex"}}]}})
    [note] = get_meetnotes().list_notes(since=datetime(2025, 11, 1, tzinfo=timezone.utc))
    assert note["keywords"] == ["pricing", "proposal", "Globex"]
    assert note["action_items"] == "**Pat**\nSend the quote (02:10)" and note["duration"] == 31.5
    assert note["organizer_email"] == "pat@agency.test"


def test_a_note_repeated_across_pages_is_listed_once(live):
    """Paging by `skip` (https://docs.fireflies.ai/graphql-api/query/transcripts) is not stable: a transcript that
    finishes while the list is read shifts the page boundary, and one id comes on two pages. It is listed once."""
    def item(n, title=None):
        return {"id": f"01JFFDUP{n:03d}", "title": title or f"Call {n}", "date": 1_763_000_000_000 + n * 60_000}

    live.add(responses.POST, URL, json={"data": {"transcripts": [item(n) for n in range(50)]}})
    live.add(responses.POST, URL, json={"data": {"transcripts": [item(49, "Call 49 (renamed)"), item(50)]}})
    notes = get_meetnotes().list_notes(since=None)
    assert [note["id"] for note in notes] == [f"01JFFDUP{n:03d}" for n in range(51)]
    assert notes[49]["title"] == "Call 49 (renamed)"
