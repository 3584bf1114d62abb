"""Session 32 (the same thing written two ways): a note's organiser address as the meeting-notes provider spells it.
The organiser of a meeting sees it (queries.visible: `lower(organizer_email)` against their own address), so the
address is kept without the white space a provider may send around it, as the attendees' already are."""
import responses

from chalicelib.areas.meetings.models import Meeting
from chalicelib.areas.meetings.service_sync import run_sync
from tests.areas.meetings.test_fireflies_live import URL, live, transcript  # noqa: F401 (the fixture)
from tests.factories import make_user


def test_an_organiser_address_sent_with_spaces_still_shows_the_meeting_to_its_organiser(live, db, api):  # noqa: F811
    pat = make_user(db, email="pat@agency.test", name="Pat")
    note = transcript(1)
    note["organizer_email"] = " Pat@Agency.test "  # the organiser is no attendee of this note
    note["meeting_attendees"] = [{"displayName": "Guest", "email": "guest@client.test", "name": None}]
    live.add(responses.POST, URL, json={"data": {"transcripts": [note]}})
    assert run_sync(force=True)["created"] == 1
    answer = api.get("/api/meetings", as_=pat)
    assert answer.status == 200, answer.json
    assert [m["id"] for m in answer.json["meetings"]] == ["01JFF00001"]
    assert db.get(Meeting, "01JFF00001").organizer_email == "pat@agency.test"
