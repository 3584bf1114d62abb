"""Reanalyse assigns an extracted action item only to an attendee of the meeting, as the sync does (session 25):
before, it gave the item to any active user the AI named by e-mail, who might not read the meeting. The AI's
e-mail is matched whatever its case (it was matched as written, so "Alice@..." assigned nobody)."""
from datetime import datetime, timezone

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


def _notes(*specs):
    notes = []
    for n, (note_id, attendees) in enumerate(specs):
        notes.append({"id": note_id, "title": f"Meeting {note_id}", "date": datetime(2026, 11, 1 + n, 10, tzinfo=timezone.utc),
                      "duration": 30, "organizer_email": "outsider@client.test",
                      "attendees": [{"email": e, "name": e.split("@")[0]} for e in attendees],
                      "overview": "o", "action_items": "", "keywords": []})
    return notes


def test_sync_assigns_item_to_attendee_of_another_meeting(api, db, exec_user, set_env, monkeypatch):
    """Review of session 25: two meetings in one sync batch, M1 attended by Alice, M2 by Bob; the AI gives M1's item
    to Bob, who may not read M1: it stays unassigned (one map for the batch gave it to him, with a notice)."""
    from chalicelib.areas.meetings import service_sync
    from chalicelib.providers.meetnotes import sandbox

    alice = make_user(db, email="alice-r1@agency.test")
    bob = make_user(db, email="bob-r1@agency.test")
    db.commit()
    set_env(AI_MODE="off")
    monkeypatch.setattr(sandbox.SandboxNotes, "list_notes", lambda self, since: _notes(
        ("r1-m1", [alice.email]), ("r1-m2", [bob.email])))
    monkeypatch.setattr(service_sync, "_analyse", lambda note: {"category": "sales", "action_items": [
        {"text": f"follow up {note['id']}", "assignee_email": bob.email}]})
    run_sync(force=True)
    db.expire_all()
    item = db.scalar(select(MeetingActionItem).where(MeetingActionItem.meeting_id == "r1-m1"))
    told = db.scalars(select(Notification.resource_id).where(Notification.user_id == bob.id)).all()
    status = api.get("/api/meetings/r1-m1", as_=bob).status
    # Bob did not attend r1-m1 and cannot read it, yet the sync gives him its item (and a notice)
    theirs = db.scalar(select(MeetingActionItem).where(MeetingActionItem.meeting_id == "r1-m2"))
    assert status == 404 and item.assignee_id is None, (item.assignee_id, status)
    assert theirs.assignee_id == bob.id and told == [theirs.id]  # their own meeting's item, told once


def test_reanalyse_matches_email_not_stored_attendee(api, db, exec_user, set_env, monkeypatch):
    """An attendee who was no user at the sync (user_id null on the attendee row) becomes one; reanalyse gives
    them the item by e-mail, though the meeting's scope (attendee user_id) still hides it from them."""
    from chalicelib.areas.meetings import service_sync
    from chalicelib.providers.meetnotes import sandbox

    set_env(AI_MODE="off")
    monkeypatch.setattr(sandbox.SandboxNotes, "list_notes", lambda self, since: _notes(
        ("r1-m3", ["carol-r1@agency.test"])))
    monkeypatch.setattr(service_sync, "_analyse", lambda note: {"category": "sales", "action_items": []})
    run_sync(force=True)
    carol = make_user(db, email="carol-r1@agency.test")
    db.commit()
    monkeypatch.setattr(service_sync, "_analyse", lambda note: {"category": "sales", "action_items": [
        {"text": "send the deck", "assignee_email": carol.email}]})
    assert api.post("/api/meetings/r1-m3/reanalyse", as_=exec_user).status == 202
    db.expire_all()
    item = db.scalar(select(MeetingActionItem).where(MeetingActionItem.meeting_id == "r1-m3"))
    status = api.get("/api/meetings/r1-m3", as_=carol).status
    assert status == 404 and item.assignee_id is None, (item.assignee_id, status)
