"""Session 29: a meeting deleted (by the sync's purge, or an administrator) while its transcript is fetched from the
provider, with no transaction open, is a 404 as a request made after the delete would be, not a 500 (the re-read
found no row and the write went to None)."""
from sqlalchemy import delete

from chalicelib.areas.meetings.models import Meeting
from tests.areas.meetings.factories import make_meeting


def test_a_meeting_deleted_while_its_transcript_is_fetched_is_a_404(api, db, employee, monkeypatch):
    from chalicelib.providers.meetnotes.sandbox import SandboxNotes

    meeting = make_meeting(db, id="sandbox-note-2", title="Sprint planning", attendees=[employee])
    fetch = SandboxNotes.get_transcript

    def deleted_meanwhile(self, note_id):
        sentences = fetch(self, note_id)
        db.execute(delete(Meeting).where(Meeting.id == note_id))
        db.flush()
        return sentences

    monkeypatch.setattr(SandboxNotes, "get_transcript", deleted_meanwhile)
    answer = api.get(f"/api/meetings/{meeting.id}/transcript", as_=employee)
    assert answer.status == 404, answer
    assert answer.json["error"] == "Meeting not found"
