"""Session 30, meetnotes texts with a NUL or a lone surrogate: see tests/providers/test_nul_texts_s30.py."""
import json

import pytest
import responses
from sqlalchemy import select

from chalicelib.areas.meetings.models import Meeting, MeetingAttendee
from chalicelib.areas.meetings.service_sync import run_sync
from tests.areas.meetings.factories import make_meeting
from tests.areas.meetings.test_fireflies_live import URL, live, transcript  # noqa: F401 - fixtures
from tests.providers.test_nul_texts_s30 import LONE, NUL, strict

# ---------------------------------------------------------------- meeting notes (Fireflies)

@pytest.mark.parametrize("bad, kept", [(NUL, ""), (LONE, "\ufffd")])
def test_a_meeting_note_with_nul_or_a_lone_surrogate_is_stored_cleaned(db, live, bad, kept):  # noqa: F811
    """The batch's write failed: no note of it was stored, on every run."""
    odd = {**transcript(2), "title": f"Call{bad} 2",
           "meeting_attendees": [{"displayName": f"Pat{bad}", "email": "pat@agency.test"}],
           "summary": {"overview": f"Over{bad}view", "action_items": f"**Pat**\nPat: send{bad} the notes",
                       "keywords": [f"key{bad}word"]}}
    live.add(responses.POST, URL, json={"data": {"transcripts": [transcript(1), odd, transcript(3)]}})
    result = run_sync(force=True)
    assert result["created"] == 3, result
    note = db.get(Meeting, "01JFF00002")
    assert (note.title, note.summary) == (f"Call{kept} 2", f"Over{kept}view")
    assert [a.name for a in db.scalars(select(MeetingAttendee).where(MeetingAttendee.meeting_id == note.id))] == [
        f"Pat{kept}"]


def test_a_transcript_sentence_with_a_lone_surrogate_is_answered_as_strict_json(api, db, employee, live):  # noqa: F811
    meeting = make_meeting(db, id="01JFFTEXT", attendees=[employee])
    live.add(responses.POST, URL, json={"data": {"transcript": {"id": "01JFFTEXT", "sentences": [
        {"speaker_name": "Pat", "text": f"Hello {LONE}", "start_time": 0.5, "end_time": 1.5}]}}})
    answer = api.get(f"/api/meetings/{meeting.id}/transcript", as_=employee)
    assert answer.status == 200, answer.json
    assert "Hello \ufffd" in json.dumps(strict(answer), ensure_ascii=False)
