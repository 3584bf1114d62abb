"""The live meeting-notes adapter (Fireflies GraphQL API) against recorded answers (`responses`): the query,
variables and auth it sends, paging with limit/skip, and how it reads errors (GraphQL errors, 429, timeouts);
then a whole sync through it."""
import json
from datetime import datetime, timezone

import pytest
import requests
import responses
from sqlalchemy import func, select

from chalicelib.areas.meetings.models import Meeting, MeetingAttendee
from chalicelib.areas.meetings.service_sync import run_sync
from chalicelib.core.errors import BadGateway, GatewayTimeout, NotFound, ServiceUnavailable
from chalicelib.providers.meetnotes import get_meetnotes
from chalicelib.providers.meetnotes.live import FirefliesNotes
from tests.factories import make_user

URL = "https://api.fireflies.ai/graphql"
BASE_MS = 1_763_000_000_000  # 2025-11-13, milliseconds since the epoch as Fireflies answers `date`


def transcript(n: int, emails=("pat@agency.test", "guest@client.test")) -> dict:
    return {"id": f"01JFF{n:05d}", "title": f"Call {n}", "date": BASE_MS + n * 60_000, "duration": 30.5,
            "organizer_email": emails[0],
            "meeting_attendees": [{"displayName": "Pat", "email": emails[0], "name": None},
                                  {"displayName": None, "email": emails[1], "name": "Guest"}],
            "summary": {"overview": f"Overview {n}", "action_items": "**Pat**\nPat: send the notes", "keywords": ["x"]}}


@pytest.fixture
def live(set_env):
    set_env(MEETNOTES_MODE="live", MEETNOTES_API_KEY="ff-test-key")
    with responses.RequestsMock() as mock:
        yield mock


def _sent(call) -> dict:
    assert call.request.url == URL
    assert call.request.headers["Authorization"] == "Bearer ff-test-key"
    return json.loads(call.request.body)


def test_lists_every_page_since_a_date(live):
    live.add(responses.POST, URL, json={"data": {"transcripts": [transcript(n) for n in range(50)]}})
    live.add(responses.POST, URL, json={"data": {"transcripts": [transcript(n) for n in range(50, 53)]}})
    since = datetime(2025, 11, 1, 0, 0, tzinfo=timezone.utc)
    notes = get_meetnotes().list_notes(since=since)
    assert len(notes) == 53 and notes[0]["id"] == "01JFF00000" and notes[-1]["id"] == "01JFF00052"
    first, second = (_sent(call) for call in live.calls)
    assert "transcripts(fromDate: $fromDate, limit: $limit, skip: $skip)" in first["query"]
    assert first["variables"] == {"limit": 50, "skip": 0, "fromDate": "2025-11-01T00:00:00.000Z"}
    assert second["variables"]["skip"] == 50
    note = notes[0]
    assert note["date"] == datetime.fromtimestamp(BASE_MS / 1000, tz=timezone.utc)
    assert note["attendees"] == [{"email": "pat@agency.test", "name": "Pat"}, {"email": "guest@client.test", "name": "Guest"}]
    assert (note["overview"], note["action_items"], note["organizer_email"]) == (
        "Overview 0", "**Pat**\nPat: send the notes", "pat@agency.test")


def test_first_sync_sends_no_from_date(live):
    live.add(responses.POST, URL, json={"data": {"transcripts": []}})
    assert get_meetnotes().list_notes(since=None) == []
    assert "fromDate" not in _sent(live.calls[0])["variables"]


def test_transcript(live):
    live.add(responses.POST, URL, json={"data": {"transcript": {"id": "01JFF1", "sentences": [
        {"speaker_name": "Pat", "text": "Hello", "start_time": 0.5, "end_time": 1.25}]}}})
    assert get_meetnotes().get_transcript("01JFF1") == [
        {"speaker_name": "Pat", "text": "Hello", "start_time": 0.5, "end_time": 1.25}]
    body = _sent(live.calls[0])
    assert body["variables"] == {"transcriptId": "01JFF1"} and "sentences" in body["query"]


def _error(message: str, code: str, status: int, **metadata) -> dict:
    """A GraphQL error as https://docs.fireflies.ai/fundamentals/errors shows it (message, code, friendly, extensions)."""
    extensions = {"code": code, "status": status, **({"metadata": metadata} if metadata else {})}
    return {"message": message, "code": code, "friendly": True, "extensions": extensions}


@pytest.mark.parametrize("status, body, headers, error", [
    # HTTP 429 with a Retry-After header and no retryAfter in the body
    (429, {"data": None, "errors": [_error("Too many requests", "too_many_requests", 429)]}, {"Retry-After": "60"},
     ServiceUnavailable),
    (200, {"data": None, "errors": [_error("Invalid API key", "auth_failed", 401)]}, {}, BadGateway),
    (200, {"data": None, "errors": [{"message": "Too many requests", "extensions": {"code": "too_many_requests"}}]}, {},
     ServiceUnavailable),
    (200, {"data": {"transcript": None}, "errors": [_error("Transcript not found", "object_not_found", 404,
                                                           objectType="Transcript")]},
     {}, NotFound),
    (500, {"message": "internal"}, {}, BadGateway),
    (502, None, {}, BadGateway),
])
def test_errors(live, status, body, headers, error):
    if body is None:
        live.add(responses.POST, URL, body="<html>bad gateway</html>", status=status)
    else:
        live.add(responses.POST, URL, json=body, status=status, headers=headers)
    with pytest.raises(error) as raised:
        get_meetnotes().get_transcript("x")
    if status == 429:
        assert "60" in raised.value.message


def test_timeout_is_504(live):
    live.add(responses.POST, URL, body=requests.Timeout("slow"))
    with pytest.raises(GatewayTimeout) as raised:
        FirefliesNotes(api_key="ff-test-key").list_notes(since=None)
    assert raised.value.status == 504


def test_a_whole_sync_through_the_live_adapter(live, db, api):
    pat = make_user(db, email="pat@agency.test", name="Pat")
    live.add(responses.POST, URL, json={"data": {"transcripts": [transcript(1), transcript(2)]}})
    result = run_sync(force=True)
    assert (result["created"], result["fetched"]) == (2, 2)
    assert db.scalar(select(func.count()).select_from(Meeting)) == 2
    users = {a.email: a.user_id for a in db.scalars(select(MeetingAttendee).where(MeetingAttendee.meeting_id == "01JFF00001"))}
    assert users == {"pat@agency.test": pat.id, "guest@client.test": None}
    # the next sync asks from three days before the newest note's date (a longer meeting's note may be finished
    # after a later one's), and finds it again (no duplicate)
    live.add(responses.POST, URL, json={"data": {"transcripts": [transcript(2)]}})
    again = run_sync(force=True)
    assert (again["created"], again["updated"]) == (0, 1)
    assert _sent(live.calls[1])["variables"]["fromDate"] == "2025-11-10T02:15:20.000Z"
    assert db.scalar(select(func.count()).select_from(Meeting)) == 2


def test_paging_stops_at_its_bound(live, monkeypatch, caplog):
    """A provider that always answers a full page is read MAX_PAGES times, never endlessly; the cut is logged with
    the oldest date read (Fireflies lists newest first: the older notes are not imported; session 32)."""
    from chalicelib.providers.meetnotes import live as meetnotes_live

    monkeypatch.setattr(meetnotes_live, "MAX_PAGES", 3)
    served = []

    def page(request):
        served.append(json.loads(request.body)["variables"])
        if len(served) > 6:
            raise requests.ConnectionError("the test stops an endless listing")
        start = (len(served) - 1) * 50
        return 200, {}, json.dumps({"data": {"transcripts": [transcript(n) for n in range(start, start + 50)]}})

    live.add_callback(responses.POST, URL, callback=page, content_type="application/json")
    with caplog.at_level("WARNING", logger="wms.meetnotes"):
        notes = get_meetnotes().list_notes(since=None)
    assert len(notes) == 150 and [v["skip"] for v in served] == [0, 50, 100]
    cut = [r.getMessage() for r in caplog.records if "listing cut" in r.getMessage()]
    assert len(cut) == 1 and "at 3 pages (150 notes) since the beginning" in cut[0]
    assert f"older than {min(n['date'] for n in notes).isoformat()} are not imported" in cut[0]


def _shifted_pages(live):
    """Fireflies lists newest first, by `skip`: a note finished between the two page reads pushes the others down by
    one, so the last note of the first page comes again first on the second (here with its summary filled since)."""
    live.add(responses.POST, URL, json={"data": {"transcripts": [transcript(n) for n in range(52, 2, -1)]}})
    again = {**transcript(3), "summary": {"overview": "Overview 3, finished", "action_items": "", "keywords": []}}
    live.add(responses.POST, URL, json={"data": {"transcripts": [again] + [transcript(n) for n in (2, 1, 0)]}})


def test_a_note_on_two_pages_is_kept_once_the_later_pages_copy(live):
    _shifted_pages(live)
    notes = get_meetnotes().list_notes(since=None)
    ids = [note["id"] for note in notes]
    assert len(ids) == len(set(ids)) == 53 and ids == sorted(ids)  # oldest first, as before
    (note,) = [note for note in notes if note["id"] == "01JFF00003"]
    assert note["overview"] == "Overview 3, finished"  # the later read
    assert [_sent(call)["variables"]["skip"] for call in live.calls] == [0, 50]


def test_a_sync_whose_pages_share_a_note_succeeds(live, db, api):
    """The sync writes the notes with INSERT ... ON CONFLICT (id) DO UPDATE: on Postgres a note listed twice in one
    statement failed the whole sync ("ON CONFLICT DO UPDATE command cannot affect row a second time", 21000)."""
    make_user(db, email="pat@agency.test", name="Pat")
    _shifted_pages(live)
    result = run_sync(force=True)
    assert result["fetched"] == 53
    assert result["created"] + result.get("remaining", 0) == 53  # a sync may leave new notes for its next run
    assert db.scalar(select(func.count()).select_from(Meeting)) == result["created"]
    assert db.get(Meeting, "01JFF00003").summary == "Overview 3, finished"  # among the oldest: written first
