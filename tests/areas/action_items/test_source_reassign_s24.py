"""An action-centre item mirrored from another area's record, reassigned in the action centre (PATCH assigned_to):
the source follows, or the reassignment is refused (session 24; moves audit; docs/decisions/action_items.md).

Before, only the item changed: the relationship action (whose assignee decides who sees it) and the meeting's
action item kept the old assignee, so the new assignee got 404 on the source, yet completing the item in the
action centre marked that source done."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.areas.meetings.models import MeetingActionItem
from chalicelib.areas.relationships.models import RelationshipAction
from tests.areas.deals.factories import make_company, make_contact
from tests.areas.meetings.factories import make_meeting
from tests.factories import make_user

REL = "/api/relationships"


def _relationship_item(api, db, user):
    contact = make_contact(db, company_id=make_company(db).id)
    made = api.post(f"{REL}/contacts/{contact.id}/relationship-actions", as_=user,
                    json={"title": "Call about renewal", "action_type": "call"})
    assert made.status == 201, made
    action_id = made.json["action"]["id"]
    return action_id, db.scalar(select(ActionItem).where(ActionItem.source_id == action_id))


def test_a_relationship_action_follows_its_item_reassigned_in_the_action_centre(api, db, employee):
    colleague = make_user(db, access_level="employee")
    action_id, item = _relationship_item(api, db, employee)
    moved = api.patch(f"/api/action-items/{item.id}", as_=employee, json={"assigned_to": colleague.id})
    assert moved.status == 200, moved
    assert moved.json["action_item"]["assigned_to"] == colleague.id
    theirs = {a["id"]: a for a in api.get(f"{REL}/relationship-actions", as_=colleague).json["actions"]}
    mine = {a["id"] for a in api.get(f"{REL}/relationship-actions", as_=employee).json["actions"]}
    assert action_id in theirs and action_id not in mine
    assert theirs[action_id]["assigned_to_user_id"] == colleague.id
    # the new assignee works the action at its source; the old one no longer reaches it
    assert api.patch(f"{REL}/relationship-actions/{action_id}", as_=employee, json={"status": "done"}).status == 404
    done = api.patch(f"{REL}/relationship-actions/{action_id}", as_=colleague, json={"status": "done"})
    assert done.status == 200, done
    db.expire_all()
    assert db.get(ActionItem, item.id).is_completed is True


def test_an_item_patched_without_a_new_assignee_leaves_the_relationship_action_alone(api, db, employee):
    action_id, item = _relationship_item(api, db, employee)
    same = api.patch(f"/api/action-items/{item.id}", as_=employee,
                     json={"assigned_to": employee.id, "notes": "ring after lunch"})
    assert same.status == 200, same
    db.expire_all()
    assert db.get(RelationshipAction, action_id).assigned_to_user_id == employee.id


def _meeting_centre_item(api, db, user, meeting):
    item_id = api.get(f"/api/meetings/{meeting.id}", as_=user).json["meeting"]["action_items"][0]["id"]
    centre = ActionItem(title="Write the notes", assigned_to=user.id, source_module="meetings", source_id=item_id,
                        source_type="meeting_action_item", urgency="normal", is_completed=False)
    db.add(centre)
    db.flush()
    return item_id, centre


def test_a_meeting_item_follows_its_item_reassigned_to_an_attendee(api, db, employee):
    colleague = make_user(db, access_level="employee")
    meeting = make_meeting(db, attendees=[employee, colleague], items=[("Write the notes", employee)])
    item_id, centre = _meeting_centre_item(api, db, employee, meeting)
    moved = api.patch(f"/api/action-items/{centre.id}", as_=employee, json={"assigned_to": colleague.id})
    assert moved.status == 200, moved
    after = api.get(f"/api/meetings/{meeting.id}", as_=colleague).json["meeting"]["action_items"][0]
    assert after["id"] == item_id and after["assignee_id"] == colleague.id


def test_a_meeting_item_cannot_go_to_someone_who_may_not_read_the_meeting(api, db, employee):
    outsider = make_user(db, access_level="employee")
    meeting = make_meeting(db, attendees=[employee], items=[("Write the notes", employee)])
    item_id, centre = _meeting_centre_item(api, db, employee, meeting)
    assert api.get(f"/api/meetings/{meeting.id}", as_=outsider).status == 404
    refused = api.patch(f"/api/action-items/{centre.id}", as_=employee, json={"assigned_to": outsider.id})
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == ["assigned_to"]
    db.expire_all()
    assert db.get(ActionItem, centre.id).assigned_to == employee.id
    assert db.get(MeetingActionItem, item_id).assignee_id == employee.id


def test_a_meeting_item_can_go_to_a_head_who_reads_every_meeting(api, db, employee):
    head = make_user(db, access_level="head")
    meeting = make_meeting(db, attendees=[employee], items=[("Write the notes", employee)])
    item_id, centre = _meeting_centre_item(api, db, employee, meeting)
    moved = api.patch(f"/api/action-items/{centre.id}", as_=employee, json={"assigned_to": head.id})
    assert moved.status == 200, moved
    db.expire_all()
    assert db.get(MeetingActionItem, item_id).assignee_id == head.id


# ---------------------------------------------------------------- lock order, against a second connection

from tests.areas.action_items.test_meeting_items_s22 import (_committed, _first_side, made,  # noqa: E402,F401
                                                             postgres_only)
from tests.concurrency.conftest import race  # noqa: E402


@postgres_only
def test_a_reassignment_waits_for_a_status_change_at_the_meeting(api, db, engine, made, monkeypatch, exec_user):
    """The meeting's item is held by a status change (dismissed) that has not yet written its centre item: the
    reassignment waits for the meeting's item before it takes its own row (the other order deadlocks), then both
    rows carry both changes."""
    from chalicelib.areas.action_items import service as action_items_service

    head = make_user(db, access_level="head")
    user_id, meeting_id, item_id, centre_id = _committed(engine, made)

    def dismiss(ctx):
        from chalicelib.areas.meetings import service as meetings_service
        from chalicelib.areas.meetings.schemas import ActionItemStatusUpdate
        from chalicelib.core.schemas import model_of

        meetings_service.set_action_item_status(ctx, meeting_id, item_id, data=model_of(ActionItemStatusUpdate)
                                                .model_validate({"status": "dismissed"}))

    first = _first_side(engine, user_id, dismiss, monkeypatch, action_items_service, "set_sourced_completed")
    answer, outcomes = race(first, lambda: api.patch(f"/api/action-items/{centre_id}", as_=exec_user,
                                                      json={"assigned_to": head.id}))
    assert (answer.status, outcomes) == (200, ["committed"]), (answer, outcomes)
    db.expire_all()
    assert (db.get(MeetingActionItem, item_id).status, db.get(MeetingActionItem, item_id).assignee_id) == (
        "dismissed", head.id)
    assert (db.get(ActionItem, centre_id).is_completed, db.get(ActionItem, centre_id).assigned_to) == (True, head.id)
