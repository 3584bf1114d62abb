"""Code no test ran (session 29 coverage audit): a re-analysis the AI provider cannot answer, an action-centre
item reassigned after its meeting item went or to the meeting item's own assignee, a re-analysis after commit
that raised."""
from __future__ import annotations

from sqlalchemy import delete, select

from chalicelib.areas.meetings.models import Meeting, MeetingActionItem
from tests.areas.meetings.factories import make_meeting
from tests.factories import make_user


def test_a_reanalysis_the_ai_cannot_answer_leaves_the_meeting_as_it_was(api, db, exec_user, set_env):
    meeting = make_meeting(db, attendees=[exec_user], category="sales")
    set_env(AI_MODE="off")
    answer = api.post(f"/api/meetings/{meeting.id}/reanalyse", as_=exec_user)
    assert answer.status == 202, answer
    db.expire_all()
    assert db.get(Meeting, meeting.id).category == "sales"
    assert db.scalar(select(MeetingActionItem.id).where(MeetingActionItem.meeting_id == meeting.id)) is None


def test_a_reanalysis_that_raises_after_commit_is_logged_not_answered(api, db, exec_user, monkeypatch, caplog):
    from chalicelib.areas.meetings import service_sync

    meeting = make_meeting(db, attendees=[exec_user])

    def broken(meeting_id):
        raise RuntimeError("database went away")

    monkeypatch.setattr(service_sync, "analyse_meeting", broken)
    answer = api.post(f"/api/meetings/{meeting.id}/reanalyse", as_=exec_user)
    assert answer.status == 202, answer
    assert any("re-analysis failed" in r.getMessage() for r in caplog.records)


def _centre_item(api, db, user, meeting):
    from tests.areas.action_items.test_source_reassign_s24 import _meeting_centre_item

    return _meeting_centre_item(api, db, user, meeting)


def test_a_centre_item_whose_meeting_item_is_gone_is_reassigned_alone(api, db, employee):
    colleague = make_user(db, access_level="employee")
    meeting = make_meeting(db, attendees=[employee], items=[("Write the notes", employee)])
    item_id, centre = _centre_item(api, db, employee, meeting)
    db.execute(delete(MeetingActionItem).where(MeetingActionItem.id == item_id))  # its meeting purged
    db.flush()
    moved = api.patch(f"/api/action-items/{centre.id}", as_=employee, json={"assigned_to": colleague.id})
    assert moved.status == 200 and moved.json["action_item"]["assigned_to"] == colleague.id, moved


def test_a_centre_item_given_to_its_meeting_items_assignee_needs_no_check(api, db, employee):
    colleague = make_user(db, access_level="employee")
    meeting = make_meeting(db, attendees=[employee, colleague], items=[("Write the notes", colleague)])
    item_id, centre = _centre_item(api, db, colleague, meeting)
    centre.assigned_to = employee.id  # the centre item went its own way
    db.flush()
    moved = api.patch(f"/api/action-items/{centre.id}", as_=employee, json={"assigned_to": colleague.id})
    assert moved.status == 200 and moved.json["action_item"]["assigned_to"] == colleague.id, moved
    db.expire_all()
    assert db.get(MeetingActionItem, item_id).assignee_id == colleague.id


def test_a_sync_that_finds_no_notes_writes_nothing_and_is_complete(api, db, exec_user, monkeypatch):
    from chalicelib.areas.meetings.models import MeetingSyncState
    from chalicelib.areas.meetings.service_sync import run_sync
    from chalicelib.providers.meetnotes.sandbox import SandboxNotes

    monkeypatch.setattr(SandboxNotes, "list_notes", lambda self, since: [])
    answer = run_sync(force=True)
    assert answer == {"fetched": 0, "created": 0, "updated": 0, "action_items": 0, "remaining": 0}, answer
    db.expire_all()
    assert db.get(MeetingSyncState, "meetnotes").last_synced_at is not None  # a complete run: not due again at once
    status = api.get("/api/admin/connections/meetnotes/status", as_=exec_user)
    assert status.status == 200 and status.json["total_notes"] == 0 and status.json["last_synced_at"], status
