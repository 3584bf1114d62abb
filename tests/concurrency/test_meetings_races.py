"""Meetings races against a real HTTP server on Postgres (the server and helpers of test_concurrency.py): an action
item status change that waited for another transaction changing the same item leaves the item and its action centre
item agreeing."""
from __future__ import annotations

import secrets

from sqlalchemy import select, update

from tests.concurrency.test_concurrency import _call, _token, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_a_status_change_that_waited_for_another_leaves_item_and_action_agreeing(live):
    from chalicelib.areas.action_items.models import ActionItem
    from chalicelib.areas.meetings.models import MeetingActionItem
    from tests.areas.meetings.factories import make_meeting
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        meeting = make_meeting(db, items=[("Send the brief", user)])
        item_id = db.scalar(select(MeetingActionItem.id).where(MeetingActionItem.meeting_id == meeting.id))
        db.add(ActionItem(title="Send the brief", source_module="meetings", source_type="meeting_action_item",
                          source_id=item_id, assigned_to=user.id, urgency="normal", is_completed=False))
        db.commit()
    # another request marking the item done, as set_action_item_status writes it
    status, body = while_held(
        sessions, [update(MeetingActionItem).where(MeetingActionItem.id == item_id).values(status="done"),
                   update(ActionItem).where(ActionItem.source_module == "meetings", ActionItem.source_id == item_id)
                   .values(is_completed=True)],
        lambda: _call(base, "POST", f"/api/meetings/{meeting.id}/action-items/{item_id}/status", _token(user),
                      {"status": "pending"}))
    assert status == 200, body
    with sessions() as db:
        item_status = db.scalar(select(MeetingActionItem.status).where(MeetingActionItem.id == item_id))
        completed = db.scalar(select(ActionItem.is_completed).where(ActionItem.source_id == item_id))
    assert (item_status, completed) == ("pending", False)  # the later request's status, on both
