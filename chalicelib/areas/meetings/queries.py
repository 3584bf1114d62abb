"""The meetings area's leaf module: the scope clause `visible`, `load_meeting`, the record builders.

Scope (docs/decisions/meetings.md): head and executive see every meeting; a manager the meetings one of
their team (squad members, direct reports, themselves) attended or organised; everyone else the meetings
they attended or organised (matched by e-mail).
"""
from __future__ import annotations

from sqlalchemy import exists, func, or_, select

from chalicelib.core.models import User
from chalicelib.core.spelling import composed
from chalicelib.core.lookup import ids_read
from chalicelib.core.query import first_per, grouped, record_sets, visible_row
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
    if not is_manager(principal):
        # the sync keeps the organiser's address composed (session 32), as a user's is stored; one stored before
        # session 32 may be kept decomposed: both spellings of the caller's address are asked for
        own = principal.user.email.lower()
        spellings = sorted({own, composed(own)})
        return or_(attended, func.lower(Meeting.organizer_email).in_(spellings))
    organisers = select(func.lower(User.email)).where(User.id.in_(users))  # organised by one of the team
    return or_(attended, func.lower(Meeting.organizer_email).in_(organisers))


def load_meeting(ctx, meeting_id: str) -> Meeting:
    return visible_row(ctx.db, Meeting, meeting_id, visible(ctx.principal), "Meeting")


def meeting_select():
    """The meeting's own columns, for records read by core.query.record_rows."""
    return select(*(getattr(Meeting, name) for name in FIELDS))


# A meeting's attendees and action items come from the notes provider and the AI: at most LIST_LIMIT of each
# a meeting (decisions.md section 4), the first by e-mail and by position.
def _attendees_statement(meeting_in):
    order = (MeetingAttendee.meeting_id, MeetingAttendee.email)
    seq = func.row_number().over(order_by=order)
    return first_per(select(MeetingAttendee.meeting_id, MeetingAttendee.email, MeetingAttendee.name,
                            MeetingAttendee.user_id, User.name.label("user_name"), User.picture.label("user_picture"),
                            seq.label("seq"))
                     .outerjoin(User, User.id == MeetingAttendee.user_id)
                     .where(meeting_in(MeetingAttendee.meeting_id)), MeetingAttendee.meeting_id, order)


def _action_items_statement(meeting_in):
    order = (MeetingActionItem.meeting_id, MeetingActionItem.position)
    seq = func.row_number().over(order_by=order)
    return first_per(select(MeetingActionItem.meeting_id, MeetingActionItem.id, MeetingActionItem.text,
                            MeetingActionItem.status, MeetingActionItem.assignee_id, User.name.label("assignee_name"),
                            MeetingActionItem.source, seq.label("seq"))
                     .outerjoin(User, User.id == MeetingActionItem.assignee_id)
                     .where(meeting_in(MeetingActionItem.meeting_id)), MeetingActionItem.meeting_id, order)


def action_item_record(db, item: MeetingActionItem) -> dict:
    """One action item as the meeting's lists answer it (any one, also past the first LIST_LIMIT)."""
    assignee = db.scalar(select(User.name).where(User.id == item.assignee_id)) if item.assignee_id else None
    return {"id": item.id, "text": item.text, "status": item.status, "assignee_id": item.assignee_id,
            "assignee_name": assignee, "source": item.source}


def meeting_lookups(db, meeting_ids) -> dict:
    """The reads of the meetings' attendees (by e-mail) and action items (by position), templates for one
    record_sets round trip."""
    return {"attendees": ids_read(db, _attendees_statement, "meeting_attendee_ids", meeting_ids),
            "action_items": ids_read(db, _action_items_statement, "meeting_item_ids", meeting_ids)}


def with_meeting_lookups(records: list[dict], sets: dict) -> list[dict]:
    """The records with attendees and action_items from `meeting_lookups`'s answers (`sets`)."""
    attendees, items = grouped(sets["attendees"], "meeting_id"), grouped(sets["action_items"], "meeting_id")
    for record in records:
        record["attendees"] = attendees.get(record["id"], [])
        record["action_items"] = items.get(record["id"], [])
    return records


def meeting_records(db, meetings) -> list[dict]:
    """Records with attendees and action items: one statement whatever the count (record_sets). `meetings`:
    Meeting rows or meeting_select() records."""
    records = [m if isinstance(m, dict) else row_dict(m, FIELDS) for m in meetings]
    return with_meeting_lookups(records, record_sets(db, **meeting_lookups(db, [r["id"] for r in records])))
