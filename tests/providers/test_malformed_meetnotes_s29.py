"""Session 29, a Fireflies transcript outside its documented shape (schema/transcript: `id`, `date` a Float of
milliseconds since the epoch, `meeting_attendees` objects) is left out of the meetings sync, which goes on with
the other notes; a `transcripts` that is no list is the provider's 502. Through the admin sync route (it runs
in-process under test, as tests/areas/meetings/test_sync.py) and run_sync, as tests/areas/meetings/
test_fireflies_live.py."""
import pytest
import responses
from sqlalchemy import select

from chalicelib.areas.meetings.models import Meeting, MeetingAttendee
from chalicelib.areas.meetings.service_sync import run_sync
from chalicelib.core.errors import BadGateway
from chalicelib.providers.meetnotes.live import FirefliesNotes, _date
from tests.areas.meetings.factories import make_meeting
from tests.areas.meetings.test_fireflies_live import URL, live, transcript  # noqa: F401 - fixtures


@pytest.mark.parametrize("date", ["next Tuesday", "2025-13-45T10:00:00Z", 1e20, True, {"ms": 1}, "", float("nan")])
def test_a_note_whose_date_cannot_be_read_is_left_out_and_the_sync_goes_on(api, db, exec_user, live, date):  # noqa: F811
    """Session 29: `_date` raised ValueError on an ISO string it could not read (OverflowError on a number past the
    calendar), failing the whole sync: no note was stored, and every later sync failed on the same note."""
    odd = {**transcript(2), "date": date}
    live.add(responses.POST, URL, json={"data": {"transcripts": [transcript(1), odd, transcript(3)]}})
    answer = api.post("/api/admin/connections/meetnotes/sync", as_=exec_user)
    assert answer.status == 202, answer.json
    assert set(db.scalars(select(Meeting.id))) == {"01JFF00001", "01JFF00003"}


def test_a_transcript_that_is_no_object_or_has_no_id_is_left_out(db, live):  # noqa: F811
    """Session 29: `item.get` on a list or string, and `item["id"]` without an id, failed the whole sync; an
    attendee that is no object, or an address that is no string, failed it too (AttributeError)."""
    odd = {**transcript(4), "organizer_email": 7,
           "meeting_attendees": ["pat@agency.test", {"email": ["x"]}, {"email": "Guest@Client.test"}],
           "summary": "no object"}
    live.add(responses.POST, URL, json={"data": {"transcripts": [
        ["01JFF00009"], "01JFF00008", {**transcript(5), "id": None}, {k: v for k, v in transcript(6).items()
                                                                     if k != "id"}, transcript(1), odd]}})
    result = run_sync(force=True)
    assert (result["created"], result["fetched"]) == (2, 2)
    fourth = db.get(Meeting, "01JFF00004")
    assert fourth.organizer_email is None and fourth.summary in (None, "")
    assert [a.email for a in db.scalars(select(MeetingAttendee).where(MeetingAttendee.meeting_id == fourth.id))] \
        == ["guest@client.test"]


def test_transcripts_that_are_no_list_are_the_providers_502(live):  # noqa: F811
    live.add(responses.POST, URL, json={"data": {"transcripts": {"id": "01JFF00001"}}})
    with pytest.raises(BadGateway, match="transcripts that are not a list"):
        FirefliesNotes(api_key="ff-test-key").list_notes(since=None)


def test_a_date_is_read_as_before():
    assert _date(None) is None
    assert _date(1_763_000_000_000).isoformat() == "2025-11-13T02:13:20+00:00"
    assert _date("2025-11-13T02:13:20Z").isoformat() == "2025-11-13T02:13:20+00:00"
    assert _date("2025-11-13T02:13:20").isoformat() == "2025-11-13T02:13:20+00:00"


@pytest.mark.parametrize("transcript", ["01JFFS29", ["sentence"], {"id": "01JFFS29", "sentences": "Hello"},
                                        {"id": "01JFFS29", "sentences": ["Hello"]}])
def test_a_transcript_that_is_no_object_or_no_list_of_sentences_is_a_502(api, db, employee, live, transcript):  # noqa: F811
    """schema/transcript: `sentences { speaker_name text start_time end_time }`. Session 29: `.get` on a transcript
    that is no object, or on a sentence that is none, raised AttributeError, a 500 on the transcript route."""
    meeting = make_meeting(db, id="01JFFS29", attendees=[employee])
    live.add(responses.POST, URL, json={"data": {"transcript": transcript}})
    answer = api.get(f"/api/meetings/{meeting.id}/transcript", as_=employee)
    assert answer.status == 502, answer.json
    assert answer.json["error"] == "Meeting notes provider answered a transcript that is not a list of sentences"
