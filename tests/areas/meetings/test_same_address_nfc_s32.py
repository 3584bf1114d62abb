"""Session 32 (parity audit: a rule kept on one write path and not another). E-mail addresses are kept composed
(Unicode NFC) and lower-cased (admin, session 32); the meetings sync kept a note's organiser and attendee addresses
lower-cased only, and matched attendees to users by `lower(email)`: an address the meeting-notes provider spells
decomposed ("jose\u0301@...") was neither the organiser nor the attendee José (stored "jos\u00e9@..."), who then did not
see the meeting, nor got its action item."""
import responses

from chalicelib.areas.meetings.models import Meeting, MeetingAttendee
from chalicelib.areas.meetings.service_sync import run_sync
from tests.areas.meetings.test_fireflies_live import URL, live, transcript  # noqa: F401 (the fixture)
from tests.factories import make_user

COMPOSED, DECOMPOSED = "jos\u00e9@agency.test", "jose\u0301@agency.test"


def test_an_organiser_spelled_decomposed_sees_the_meeting(live, db, api):  # noqa: F811
    jose = make_user(db, email=COMPOSED, name="Jos\u00e9")
    note = transcript(1)
    note["organizer_email"] = DECOMPOSED  # no attendee: only the organiser's address shows it to José
    note["meeting_attendees"] = [{"displayName": "Guest", "email": "guest@client.test", "name": None}]
    live.add(responses.POST, URL, json={"data": {"transcripts": [note]}})
    assert run_sync(force=True)["created"] == 1
    answer = api.get("/api/meetings", as_=jose)
    assert answer.status == 200, answer.json
    assert [m["id"] for m in answer.json["meetings"]] == ["01JFF00001"]
    assert db.get(Meeting, "01JFF00001").organizer_email == COMPOSED


def test_an_attendee_spelled_decomposed_is_the_user(live, db, api):  # noqa: F811
    jose = make_user(db, email=COMPOSED, name="Jos\u00e9")
    note = transcript(1)
    note["organizer_email"] = "guest@client.test"
    note["meeting_attendees"] = [{"displayName": "Jose", "email": DECOMPOSED, "name": None}]
    live.add(responses.POST, URL, json={"data": {"transcripts": [note]}})
    assert run_sync(force=True)["created"] == 1
    attendee = db.query(MeetingAttendee).filter_by(meeting_id="01JFF00001").one()
    assert (attendee.email, attendee.user_id) == (COMPOSED, jose.id)
    assert [m["id"] for m in api.get("/api/meetings", as_=jose).json["meetings"]] == ["01JFF00001"]
