"""Session 30, Fireflies transcript fields outside their documented types (schema/transcript: `duration` a Float of
minutes, `title` a String, `summary { overview action_items }` Strings, `meeting_attendees { displayName name }`
Strings, `id` a String): an unreadable duration (a word, an object, a boolean, a number that is not finite or is
negative) is read as absent (null), as an unreadable attendee address is none; a title, overview, action items or
attendee name that is no string (nor, for action items, a list) is absent too; a note whose id is longer than the
meetings' 100-character id is left out, as one without an id is (docs/decisions/meetings.md). Before, the value
went to the batch's write (a Float column, `[:500]` of a number): the batch failed and nothing of it was stored,
on every run. Through run_sync, as tests/providers/test_malformed_meetnotes_s29.py."""
import pytest
import responses
from sqlalchemy import select

from chalicelib.areas.meetings.models import Meeting, MeetingAttendee
from chalicelib.areas.meetings.service_sync import run_sync
from chalicelib.providers.meetnotes.live import note_from
from tests.areas.meetings.test_fireflies_live import URL, live, transcript  # noqa: F401 - fixtures


@pytest.mark.parametrize("duration", ["abc", {"minutes": 30}, True, [30], float("nan"), float("inf"), -5])
def test_an_unreadable_duration_is_stored_as_none_and_the_sync_goes_on(db, live, duration):  # noqa: F811
    live.add(responses.POST, URL, json={"data": {"transcripts": [transcript(1), {**transcript(2), "duration": duration},
                                                                 transcript(3)]}})
    result = run_sync(force=True)
    assert result["created"] == 3, result
    assert {m.id: m.duration_minutes for m in db.scalars(select(Meeting))} == {
        "01JFF00001": 30.5, "01JFF00002": None, "01JFF00003": 30.5}


def test_text_fields_that_are_no_strings_are_absent_and_an_overlong_id_is_left_out(db, live):  # noqa: F811
    odd = {**transcript(2), "title": 12345, "meeting_attendees": [{"displayName": 7, "email": "pat@agency.test"}],
           "summary": {"overview": {"text": "x"}, "action_items": {"item": "x"}, "keywords": ["x"]}}
    live.add(responses.POST, URL, json={"data": {"transcripts": [transcript(1), odd,
                                                                 {**transcript(3), "id": "9" * 101}]}})
    result = run_sync(force=True)
    assert (result["created"], result["fetched"]) == (2, 2), result
    second = db.get(Meeting, "01JFF00002")
    assert second.title == "Untitled meeting" and second.summary in (None, "") and not second.action_items_text
    assert [(a.email, a.name) for a in db.scalars(select(MeetingAttendee).where(
        MeetingAttendee.meeting_id == second.id))] == [("pat@agency.test", None)]


def test_a_duration_is_read_as_before():
    assert note_from({**transcript(1), "duration": 30.5})["duration"] == 30.5
    assert note_from({**transcript(1), "duration": 12})["duration"] == 12
    assert note_from({**transcript(1), "duration": "45.5"})["duration"] == 45.5
    assert note_from({**transcript(1), "duration": None})["duration"] is None
    assert note_from({**transcript(1), "summary": {"action_items": ["a", "b"]}})["action_items"] == "a\nb"
