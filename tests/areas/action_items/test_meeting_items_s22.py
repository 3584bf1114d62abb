"""An action-centre item raised for a meeting's action item, completed in the action centre, marks the meeting's item
done (session 22, docs/decisions/action_items.md and meetings.md). Audit: meetings -> action centre was kept in step
both ways (done or dismissed completes the item, pending reopens it) but a completion in the action centre left the
meeting's item `pending`.

Lock order: the meetings side (status change) locks the meeting's item, then writes its action-centre items; the
completion here takes the two rows in the same order (the meeting's item first), so that the two cannot deadlock.
One side runs through the real service function in a thread with a connection of its own (committed data), paused
once it holds its rows; the other goes through the API and waits for it (as tests/concurrency/
test_relationships_lock_order.py does for relationship actions)."""
from __future__ import annotations

import os
import secrets

import pytest
from sqlalchemy import delete, insert, select

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.areas.meetings.models import Meeting, MeetingActionItem
from chalicelib.core.models import User
from tests.areas.meetings.factories import make_meeting
from tests.concurrency.conftest import committed_rows, first_side, race


def _centre_item(db, user, meeting_item_id) -> ActionItem:
    item = ActionItem(title="Write the notes", assigned_to=user.id, source_module="meetings",
                      source_id=meeting_item_id, source_type="meeting_action_item", urgency="normal",
                      is_completed=False)
    db.add(item)
    db.flush()
    return item


def _meeting_item_id(api, user, meeting_id) -> str:
    return api.get(f"/api/meetings/{meeting_id}", as_=user).json["meeting"]["action_items"][0]["id"]


def _statuses(api, user, meeting_id) -> list[str]:
    return [i["status"] for i in api.get(f"/api/meetings/{meeting_id}", as_=user).json["meeting"]["action_items"]]


def test_meeting_item_completed_in_action_centre_is_done_at_the_meeting(api, db, employee):
    meeting = make_meeting(db, attendees=[employee], items=[("Write the notes", employee)])
    centre = _centre_item(db, employee, _meeting_item_id(api, employee, meeting.id))
    answer = api.post(f"/api/action-items/{centre.id}/complete", as_=employee)
    assert answer.status == 200, answer
    assert _statuses(api, employee, meeting.id) == ["done"]


def test_a_dismissed_meeting_item_stays_dismissed_when_its_centre_item_is_completed_again(api, db, employee):
    meeting = make_meeting(db, attendees=[employee], items=[("Write the notes", employee)])
    item_id = _meeting_item_id(api, employee, meeting.id)
    centre = _centre_item(db, employee, item_id)
    dismissed = api.post(f"/api/meetings/{meeting.id}/action-items/{item_id}/status", as_=employee,
                         json={"status": "dismissed"})
    assert dismissed.status == 200, dismissed
    assert api.post(f"/api/action-items/{centre.id}/complete", as_=employee).status == 200
    assert _statuses(api, employee, meeting.id) == ["dismissed"]  # not turned into done


def test_an_item_reopened_at_the_meeting_and_completed_again_is_done_again(api, db, employee):
    meeting = make_meeting(db, attendees=[employee], items=[("Write the notes", employee)])
    item_id = _meeting_item_id(api, employee, meeting.id)
    centre = _centre_item(db, employee, item_id)
    assert api.post(f"/api/action-items/{centre.id}/complete", as_=employee).status == 200
    reopened = api.post(f"/api/meetings/{meeting.id}/action-items/{item_id}/status", as_=employee,
                        json={"status": "pending"})
    assert reopened.status == 200, reopened
    db.expire_all()
    assert db.get(ActionItem, centre.id).is_completed is False
    assert api.post(f"/api/action-items/{centre.id}/complete", as_=employee).status == 200
    assert _statuses(api, employee, meeting.id) == ["done"]


def test_another_meetings_item_is_left_alone(api, db, employee):
    meeting = make_meeting(db, attendees=[employee], items=[("Write the notes", employee), ("Book a room", employee)])
    first = _meeting_item_id(api, employee, meeting.id)
    centre = _centre_item(db, employee, first)
    assert api.post(f"/api/action-items/{centre.id}/complete", as_=employee).status == 200
    assert _statuses(api, employee, meeting.id) == ["done", "pending"]


# ---------------------------------------------------------------- lock order, against a second connection

postgres_only = pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite",
                                   reason="row locks between two connections need Postgres")


def _forget(conn, row) -> None:
    user_id, meeting_id, centre_id = row
    conn.execute(delete(ActionItem).where(ActionItem.id == centre_id))
    conn.execute(delete(Meeting).where(Meeting.id == meeting_id))  # its items cascade
    conn.execute(delete(User).where(User.id == user_id))


@pytest.fixture(scope="module")
def made(engine):
    """The committed rows of the lock order tests (`committed_rows`)."""
    yield from committed_rows(engine, _forget)


def _committed(engine, made) -> tuple[str, str, str, str]:
    """(executive id, meeting id, its pending action item's id, that item's action-centre item id), committed."""
    with engine.connect() as other:
        user_id = other.execute(insert(User).values(email=f"meet-{secrets.token_hex(4)}@agency.test", name="Racer",
                                                    access_level="executive", is_active=True)
                                .returning(User.id)).scalar_one()
        meeting_id = f"note-race-{secrets.token_hex(6)}"
        other.execute(insert(Meeting).values(id=meeting_id, title="Race", summary="Race"))
        item_id = other.execute(insert(MeetingActionItem).values(
            meeting_id=meeting_id, position=0, text="Write the notes", status="pending", assignee_id=user_id,
            source="ai").returning(MeetingActionItem.id)).scalar_one()
        centre_id = other.execute(insert(ActionItem).values(
            title="Write the notes", assigned_to=user_id, source_module="meetings", source_type="meeting_action_item",
            source_id=item_id, is_completed=False, urgency="normal").returning(ActionItem.id)).scalar_one()
        other.commit()
    made.append((user_id, meeting_id, centre_id))
    return user_id, meeting_id, item_id, centre_id


def _first_side(engine, user_id, work, monkeypatch, module, pause_before: str):
    """`first_side` with a 10 s lock timeout: a side stuck on the test's transaction fails instead of hanging."""
    return first_side(engine, user_id, work, monkeypatch, module, pause_before, lock_timeout="10s")


def _state(db, item_id, centre_id):
    db.expire_all()
    return (db.scalar(select(MeetingActionItem.status).where(MeetingActionItem.id == item_id)),
            db.scalar(select(ActionItem.is_completed).where(ActionItem.id == centre_id)))


@postgres_only
def test_a_completion_that_waited_for_a_dismissal_at_the_meeting_changes_nothing(api, db, engine, made,
                                                                                 monkeypatch, exec_user):
    """The meeting's item is held by a status change (dismissed) that has not yet written its centre item: the
    completion waits for the meeting's item before it takes its own row (the other order deadlocked)."""
    from chalicelib.areas.action_items import service as action_items_service

    user_id, meeting_id, item_id, centre_id = _committed(engine, made)

    def dismiss(ctx):
        from chalicelib.areas.meetings import service as meetings_service
        from chalicelib.areas.meetings.schemas import ActionItemStatusUpdate
        from chalicelib.core.schemas import model_of

        meetings_service.set_action_item_status(ctx, meeting_id, item_id, data=model_of(ActionItemStatusUpdate)
                                                .model_validate({"status": "dismissed"}))

    first = _first_side(engine, user_id, dismiss, monkeypatch, action_items_service, "set_sourced_completed")
    answer, outcomes = race(first, lambda: api.post(f"/api/action-items/{centre_id}/complete", as_=exec_user))
    assert (answer.status, answer.json, outcomes) == (200, {"ok": True}, ["committed"]), (answer, outcomes)
    assert _state(db, item_id, centre_id) == ("dismissed", True)  # not turned into done


@postgres_only
def test_a_reopening_at_the_meeting_that_waited_for_the_completion_reopens_both(api, db, engine, made, monkeypatch,
                                                                                exec_user):
    """The completion holds both rows (the meeting's item, then its own); `pending` at the meeting waits for it and
    then reopens both: the later request's state, on both."""
    from chalicelib.areas.agents import service as agents_service

    user_id, meeting_id, item_id, centre_id = _committed(engine, made)

    def complete(ctx):
        from chalicelib.areas.action_items import service as action_items_service

        action_items_service.complete_item(ctx, item_id=centre_id)

    first = _first_side(engine, user_id, complete, monkeypatch, agents_service, "unstar_at_source")
    answer, outcomes = race(first, lambda: api.post(f"/api/meetings/{meeting_id}/action-items/{item_id}/status",
                                                     as_=exec_user, json={"status": "pending"}))
    assert (answer.status, outcomes) == (200, ["committed"]), (answer, outcomes)
    assert _state(db, item_id, centre_id) == ("pending", False)
