"""Session 29, code no test ran in the live meeting-notes adapter (Fireflies GraphQL) and its sandbox: the
`retryAfter` of a rate limit in its other documented-or-tolerated forms (an ISO date-time, epoch seconds, a value
that is no wait), a body that is not JSON, an empty transcript, and the sandbox without a database. Bodies follow
https://docs.fireflies.ai/miscellaneous/error-codes#too_many_requests, as tests/providers/test_meetnotes_wire.py."""
import time
from datetime import datetime, timedelta, timezone

import pytest
import responses

from chalicelib.providers.meetnotes import get_meetnotes
from chalicelib.providers.meetnotes.live import _date, _lines
from chalicelib.providers.meetnotes.sandbox import SandboxNotes
from tests.areas.meetings.factories import make_meeting
from tests.providers.test_meetnotes_wire import URL, _too_many


@pytest.fixture
def live(set_env):
    set_env(MEETNOTES_MODE="live", MEETNOTES_API_KEY="ff-test-key")
    with responses.RequestsMock() as mock:
        yield mock


def _transcript(api, db, employee, live, body, *, status=200, headers=None, note="01JFFS29"):
    meeting = make_meeting(db, id=note, attendees=[employee])
    live.add(responses.POST, URL, status=status, json=body, headers=headers or {})
    return api.get(f"/api/meetings/{meeting.id}/transcript", as_=employee)


def test_a_retry_after_as_an_iso_date_time_or_epoch_seconds_is_read(api, db, employee, live):
    later = (datetime.now(timezone.utc) + timedelta(seconds=40)).strftime("%Y-%m-%dT%H:%M:%S")  # no offset: UTC
    answer = _transcript(api, db, employee, live, _too_many(later))
    assert answer.status == 503 and 35 <= answer.json["retry_after"] <= 41, answer.json
    answer = _transcript(api, db, employee, live, _too_many(int(time.time()) + 30), note="01JFFS29B")
    assert answer.status == 503 and 25 <= answer.json["retry_after"] <= 31, answer.json
    answer = _transcript(api, db, employee, live, _too_many(str(int(time.time()) + 30)), note="01JFFS29C")
    assert answer.status == 503 and 25 <= answer.json["retry_after"] <= 31, answer.json


@pytest.mark.parametrize("retry_after", ["soon", True, {"seconds": 5}, "Infinity", "1e999", "NaN"])
def test_a_retry_after_that_is_no_wait_is_a_minute_never_a_500(api, db, employee, live, retry_after):
    """An unreadable retryAfter (a word, a boolean, an object) is read as absent: a minute. Session 29: a value
    Python reads as a non-finite number ("Infinity", "1e999") made the 503's whole seconds int(inf), an
    OverflowError answered as a 500; NaN too is no wait."""
    answer = _transcript(api, db, employee, live, _too_many(retry_after))
    assert answer.status == 503, answer.json
    assert answer.json["retry_after"] == 60


def test_a_429_whose_body_is_not_json_is_a_rate_limit_and_another_is_502(api, db, employee, live):
    meeting = make_meeting(db, id="01JFFS29D", attendees=[employee])
    live.add(responses.POST, URL, status=429, body="Too Many Requests", headers={"Retry-After": "12"})
    answer = api.get(f"/api/meetings/{meeting.id}/transcript", as_=employee)
    assert answer.status == 503 and answer.json["retry_after"] == 12
    live.add(responses.POST, URL, status=502, body="<html>Bad gateway</html>")
    answer = api.get(f"/api/meetings/{meeting.id}/transcript", as_=employee)
    assert answer.status == 502 and "without JSON" in answer.json["error"]


def test_a_transcript_the_provider_answers_as_null_is_404(api, db, employee, live):
    answer = _transcript(api, db, employee, live, {"data": {"transcript": None}})
    assert answer.status == 404 and answer.json == {"error": "Meeting note not found"}


def test_a_note_date_as_an_iso_string_or_absent_and_action_items_as_a_list(live):
    live.add(responses.POST, URL, json={"data": {"transcripts": [
        {"id": "01JFFISO", "title": "Kickoff", "date": "2026-03-01T09:30:00Z",
         "summary": {"action_items": ["Pat: send the quote", "Sam: book the room"]}},
        {"id": "01JFFNONE", "title": None, "date": None}]}})
    first, second = get_meetnotes().list_notes(since=None)
    assert (first["id"], first["date"], first["title"]) == ("01JFFNONE", None, "Untitled meeting")
    assert second["date"] == datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
    assert second["action_items"] == "Pat: send the quote\nSam: book the room"
    assert _date("2026-03-01T09:30:00") == datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
    assert _lines(None) == ""


def test_the_sandbox_without_a_database_names_no_people():
    assert SandboxNotes(db=None)._people() == []
