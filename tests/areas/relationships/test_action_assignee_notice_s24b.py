"""A relationship action a member of staff assigns to a colleague tells them (`action_item_assigned`), as an action
item made in the action centre does (docs/decisions/action_items.md): same type, fields and audience rules, about the
action-centre item that mirrors it. Auto-actions of life events tell nobody (docs/decisions/relationships.md,
session 24)."""
from datetime import timedelta

from sqlalchemy import select

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.core.notify import Notification
from chalicelib.core.timeutil import org_today
from tests.areas.deals.factories import make_contact
from tests.factories import grant, make_user

BASE = "/api/relationships"


def _told(db, user):
    db.expire_all()
    return db.scalars(select(Notification).where(Notification.user_id == user.id,
                                                 Notification.type == "action_item_assigned")).all()


def _create(api, user, contact, **values):
    made = api.post(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=user,
                    json={"title": "Send a card", "action_type": "card", **values})
    assert made.status == 201, made
    return made.json["action"]


def test_an_action_assigned_to_a_colleague_tells_them_as_the_action_centre_does(api, db, employee):
    colleague = make_user(db, access_level="employee")
    action = _create(api, employee, make_contact(db), assigned_to_user_id=colleague.id)
    item = db.scalar(select(ActionItem).where(ActionItem.source_id == action["id"]))
    [notice] = _told(db, colleague)
    assert (notice.title, notice.action_url, notice.resource_type, notice.resource_id, notice.actor_id) == (
        "You were assigned an action item: Send a card", "/action-centre", "action_item", item.id, employee.id)
    # the same notice as a manual item assigned the same way
    manual = api.post("/api/action-items", as_=employee, json={"title": "Manual", "assigned_to": colleague.id})
    assert manual.status == 201, manual
    assert [n.type for n in _told(db, colleague)] == ["action_item_assigned", "action_item_assigned"]


def test_an_action_of_ones_own_tells_nobody(api, db, employee):
    _create(api, employee, make_contact(db))
    _create(api, employee, make_contact(db), assigned_to_user_id=employee.id)
    assert _told(db, employee) == []


def test_a_colleague_who_may_not_open_the_action_centre_is_told_without_the_title(api, db, employee):
    colleague = make_user(db, access_level="employee")
    grant(db, colleague, "action-centre", "none")
    _create(api, employee, make_contact(db), title="Call about the divorce", assigned_to_user_id=colleague.id)
    assert [(n.title, n.action_url) for n in _told(db, colleague)] == [("You were assigned an action item", None)]


def test_auto_actions_tell_nobody(api, db, employee):
    """An event edited by a colleague makes the creator's auto-action; the daily job makes others: neither is
    announced (assigned by rule, not by a person; the action centre lists them by urgency)."""
    colleague = make_user(db, access_level="employee")
    contact = make_contact(db)
    future = (org_today() + timedelta(days=3)).isoformat()
    made = api.post(f"{BASE}/contacts/{contact.id}/life-events", as_=employee,
                    json={"event_type": "launch", "title": "Shop launch", "event_date": future,
                          "auto_action_enabled": False})
    assert made.status == 201, made
    patched = api.patch(f"{BASE}/contacts/{contact.id}/life-events/{made.json['event']['id']}", as_=colleague,
                        json={"auto_action_enabled": True})
    assert patched.status == 200, patched
    assert db.scalar(select(ActionItem).where(ActionItem.contact_id == contact.id,
                                              ActionItem.assigned_to == employee.id)) is not None
    assert _told(db, employee) == []
