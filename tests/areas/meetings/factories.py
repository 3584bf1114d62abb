"""Factories for the meetings area: plain functions that add, flush and return."""
from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone

from chalicelib.areas.meetings.models import Meeting, MeetingActionItem, MeetingAttendee
from tests.factories import add_row

_seq = itertools.count(1)


def make_meeting(db, *, attendees=(), items=(), **overrides) -> Meeting:
    n = next(_seq)
    values = {"id": f"note-{n}-{datetime.now().timestamp()}", "title": f"Meeting {n}", "summary": f"Summary {n}",
              "meeting_date": datetime.now(timezone.utc) - timedelta(days=n % 30)}
    meeting = add_row(db, Meeting, values, overrides)
    for user in attendees:
        db.add(MeetingAttendee(meeting_id=meeting.id, email=user.email.lower(), name=user.name, user_id=user.id))
    for position, (text, assignee) in enumerate(items):
        db.add(MeetingActionItem(meeting_id=meeting.id, position=position, text=text, status="pending",
                                 assignee_id=assignee.id if assignee else None, source="ai"))
    db.flush()
    return meeting
