"""The `meeting_action_item` notice (notifications audit): its resource is the action item it tells of (a meeting's
id, the provider's note id, may be up to 100 characters and does not fit a notification's resource id), and its
link the meeting's page with the full id. Two meetings whose ids share their first 36 characters, or two action
items of one meeting for the same person, no longer silence each other's notices through the de-duplication."""
from sqlalchemy import select

from chalicelib.areas.meetings.models import MeetingActionItem
from chalicelib.core.notify import Notification
from tests.areas.meetings.factories import make_meeting
from tests.factories import make_user

PREFIX = "fireflies-note-" + "x" * 21  # 36 characters shared by both meetings' ids


def test_each_action_item_is_its_own_notice_naming_it_and_its_meeting(api, db, exec_user, set_env):
    set_env(AI_MODE="sandbox")
    alice = make_user(db, name="Alice Able")
    first = make_meeting(db, id=PREFIX + "-first-meeting-of-the-week", title="Weekly sync", attendees=[alice],
                         action_items_text="Alice Able: send the timeline")
    second = make_meeting(db, id=PREFIX + "-second-meeting-of-the-week", title="Planning", attendees=[alice],
                          action_items_text="Alice Able: book the room\nAlice Able: order lunch")
    assert len(first.id) > 36 and first.id[:36] == second.id[:36]
    for meeting in (first, second):
        assert api.post(f"/api/meetings/{meeting.id}/reanalyse", as_=exec_user).status == 202
    db.expire_all()
    items = {item.id: item for item in db.scalars(select(MeetingActionItem).where(
        MeetingActionItem.meeting_id.in_([first.id, second.id])))}
    assert sorted(i.text for i in items.values()) == ["book the room", "order lunch", "send the timeline"]
    assert all(i.assignee_id == alice.id for i in items.values())
    notices = db.scalars(select(Notification).where(Notification.user_id == alice.id,
                                                    Notification.type == "meeting_action_item")).all()
    assert sorted((n.resource_type, n.resource_id) for n in notices) == sorted(
        ("meeting_action_item", item_id) for item_id in items)
    for notice in notices:
        item = items[notice.resource_id]
        title = {first.id: "Weekly sync", second.id: "Planning"}[item.meeting_id]
        assert notice.title == f"Action item from {title}: {item.text}"
        assert notice.action_url == f"/meetings/{item.meeting_id}"
