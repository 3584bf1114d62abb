"""Meetings: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The meeting list (with its nested attendees and action items) is tested in test_meetings.py."""
from chalicelib.areas.meetings.models import MeetingActionItem, MeetingAttendee
from chalicelib.core.locks import insert_rows
from tests.factories import assert_constant, make_user

from .factories import make_meeting


def test_detail_attendees_and_action_items(api, db, exec_user, count_queries):
    meeting = make_meeting(db)
    made = []

    def grow(n):
        users = [make_user(db) for _ in range(n)]
        insert_rows(db, MeetingAttendee, [{"meeting_id": meeting.id, "email": u.email, "name": u.name,
                                           "user_id": u.id} for u in users])
        insert_rows(db, MeetingActionItem, [{"meeting_id": meeting.id, "position": len(made) + i, "text": "Do",
                                             "assignee_id": u.id} for i, u in enumerate(users)])
        made.extend(users)

    def size(body):
        sizes = {len(body["meeting"]["attendees"]), len(body["meeting"]["action_items"])}
        return sizes.pop() if len(sizes) == 1 else -1

    assert_constant(api, count_queries, exec_user, f"/api/meetings/{meeting.id}", grow, size)


def test_cached_transcript_sentences(api, db, exec_user, count_queries):
    meeting = make_meeting(db, transcript=[])

    def grow(n):
        meeting.transcript = meeting.transcript + [{"speaker_name": "A", "text": "Hi", "start_time": 0.0,
                                                    "end_time": 1.0} for _ in range(n)]
        db.flush()

    assert_constant(api, count_queries, exec_user, f"/api/meetings/{meeting.id}/transcript", grow,
                    lambda b: len(b["transcript"]["sentences"]))
