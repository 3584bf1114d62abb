"""Reanalyse assigns an extracted action item only to an attendee of the meeting, as the sync does (session 25):
before, it gave the item to any active user the AI named by e-mail, who might not read the meeting. The AI's
e-mail is matched whatever its case (it was matched as written, so "Alice@..." assigned nobody)."""
from sqlalchemy import delete, func, select

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.areas.meetings.models import MeetingActionItem, MeetingAttendee
from chalicelib.areas.meetings.service_sync import run_sync
from chalicelib.core.notify import Notification
from tests.factories import make_user


def test_reanalyse_assigns_only_attendees(api, db, exec_user, set_env, monkeypatch):
    """The AI provider names an attendee and a colleague who did not attend (a live model may name anyone)."""
    from chalicelib.areas.meetings import service_sync

    people = [make_user(db, email=f"0{n}-person@agency.test", name=name)
              for n, name in enumerate(("Alice Able", "Bob Baker", "Cara Cole"))]
    set_env(AI_MODE="off")
    assert run_sync(force=True)["created"] == 5
    # Bob no longer attends sandbox-note-3 (the notes provider's attendee list changed): the AI still names him
    db.execute(delete(MeetingAttendee).where(MeetingAttendee.meeting_id == "sandbox-note-3",
                                             MeetingAttendee.user_id == people[1].id))
    db.commit()
    monkeypatch.setattr(service_sync, "_analyse", lambda note: {"category": "sales", "action_items": [
        {"text": "draft the proposal", "assignee_email": people[0].email.upper()},
        {"text": "collect reference projects", "assignee_email": people[1].email}]})
    assert api.post("/api/meetings/sandbox-note-3/reanalyse", as_=exec_user).status == 202
    db.expire_all()
    items = db.scalars(select(MeetingActionItem).where(MeetingActionItem.meeting_id == "sandbox-note-3")).all()
    assert len(items) == 2
    assert sorted(i.assignee_id or "" for i in items) == sorted([people[0].id, ""])
    assert db.scalar(select(func.count()).select_from(ActionItem).where(ActionItem.assigned_to == people[1].id)) == 0
    assert db.scalar(select(func.count()).select_from(Notification).where(
        Notification.user_id == people[1].id, Notification.type == "meeting_action_item")) == 0
    # Bob cannot read the meeting: an employee sees the meetings they attended
    assert api.get("/api/meetings/sandbox-note-3", as_=people[1]).status == 404
