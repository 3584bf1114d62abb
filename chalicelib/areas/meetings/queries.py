"""The meetings area's leaf module: the scope clause `visible`, `load_meeting`, the record builders.

Scope (docs/decisions/meetings.md): head and executive see every meeting; a manager the meetings one of
their team (squad members, direct reports, themselves) attended or organised; everyone else the meetings
they attended or organised (matched by e-mail).
"""
from __future__ import annotations

from sqlalchemy import exists, func, or_, select

from chalicelib.core.models import User
from chalicelib.core.query import visible_row
from chalicelib.core.scoping import is_manager, sees_all, team_user_ids
from chalicelib.core.serialize import row_dict

from .models import Meeting, MeetingActionItem, MeetingAttendee

FIELDS = ("id", "title", "summary", "category", "meeting_date", "duration_minutes", "organizer_email", "entity_type",
          "entity_id", "analysed_at", "created_at", "updated_at")


def visible(principal):
    if sees_all(principal):
        return None
    users = team_user_ids(principal) if is_manager(principal) else select(User.id).where(User.id == principal.id)
    attended = exists(select(MeetingAttendee.meeting_id).where(MeetingAttendee.meeting_id == Meeting.id,
                                                                MeetingAttendee.user_id.in_(users)))
    return or_(attended, func.lower(Meeting.organizer_email) == principal.user.email.lower())


def load_meeting(ctx, meeting_id: str) -> Meeting:
    return visible_row(ctx.db, Meeting, meeting_id, visible(ctx.principal), "Meeting")


def attendee_records(db, meeting_ids: list[str]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {meeting_id: [] for meeting_id in meeting_ids}
    if not meeting_ids:
        return out
    rows = db.execute(select(MeetingAttendee, User.name, User.picture)
                      .outerjoin(User, User.id == MeetingAttendee.user_id)
                      .where(MeetingAttendee.meeting_id.in_(meeting_ids))
                      .order_by(MeetingAttendee.meeting_id, MeetingAttendee.email))
    for attendee, name, picture in rows:
        out[attendee.meeting_id].append({"email": attendee.email, "name": attendee.name, "user_id": attendee.user_id,
                                         "user_name": name, "user_picture": picture})
    return out


def action_item_records(db, meeting_ids: list[str]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {meeting_id: [] for meeting_id in meeting_ids}
    if not meeting_ids:
        return out
    rows = db.execute(select(MeetingActionItem, User.name)
                      .outerjoin(User, User.id == MeetingActionItem.assignee_id)
                      .where(MeetingActionItem.meeting_id.in_(meeting_ids))
                      .order_by(MeetingActionItem.meeting_id, MeetingActionItem.position))
    for item, name in rows:
        out[item.meeting_id].append({"id": item.id, "text": item.text, "status": item.status,
                                     "assignee_id": item.assignee_id, "assignee_name": name, "source": item.source})
    return out


def meeting_records(db, meetings: list[Meeting]) -> list[dict]:
    """Records with attendees and action items: three statements whatever the count."""
    ids = [meeting.id for meeting in meetings]
    attendees, items = attendee_records(db, ids), action_item_records(db, ids)
    return [{**row_dict(meeting, FIELDS), "attendees": attendees[meeting.id], "action_items": items[meeting.id]}
            for meeting in meetings]
