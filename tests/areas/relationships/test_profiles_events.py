"""Relationship profiles and life events at /api/relationships (tool relationships)."""
from datetime import date, timedelta

import pytest
from sqlalchemy import select

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.areas.relationships.models import RelationshipAction
from chalicelib.core.timeutil import org_today
from tests.areas.deals.factories import make_company, make_contact
from tests.factories import grant

BASE = "/api/relationships"


@pytest.mark.smoke
def test_profile_is_created_with_the_contacts_phone_then_upserted(api, db, employee):
    contact = make_contact(db, phone="+61 412 345 678")
    first = api.get(f"{BASE}/contacts/{contact.id}/relationship", as_=employee)
    assert first.status == 200, first
    profile = first.json["profile"]
    assert profile["phone_number"] == "+61 412 345 678" and profile["sms_opt_in"] == 0 and profile["interests"] == []
    assert first.json["sms_connected"] == 1  # the sandbox
    again = api.get(f"{BASE}/contacts/{contact.id}/relationship", as_=employee).json["profile"]
    assert again["id"] == profile["id"]
    patched = api.patch(f"{BASE}/contacts/{contact.id}/relationship", as_=employee, json={
        "sms_opt_in": True, "interests": ["golf", "wine"], "birthday": "03-14", "preferred_name": "Jo",
        "assistant_email": "pa@client.test"})
    assert patched.status == 200, patched
    body = patched.json["profile"]
    assert (body["sms_opt_in"], body["interests"], body["birthday"], body["preferred_name"]) == (
        1, ["golf", "wine"], "03-14", "Jo")
    assert body["phone_number"] == "+61 412 345 678"  # untouched
    # upsert: a PATCH before any GET creates the profile
    other = make_contact(db, phone="+61299998888")
    made = api.patch(f"{BASE}/contacts/{other.id}/relationship", as_=employee, json={"communication_preference": "sms"})
    assert made.status == 200 and made.json["profile"]["phone_number"] == "+61299998888"
    for bad in ({"birthday": "13-01"}, {"birthday": "02-30"}, {"birthday": "March"}, {"sms_opt_in": "yes"},
                {"assistant_email": "nope"}, {"interests": "golf"}, {"birthday_year": 1700}):
        assert api.patch(f"{BASE}/contacts/{contact.id}/relationship", as_=employee, json=bad).status == 400, bad
    assert api.patch(f"{BASE}/contacts/{contact.id}/relationship", as_=employee,
                     json={"birthday": "1980-02-29"}).status == 200
    assert api.get(f"{BASE}/contacts/missing/relationship", as_=employee).status == 404
    grant(db, employee, "relationships", "view")
    assert api.patch(f"{BASE}/contacts/{contact.id}/relationship", as_=employee, json={}).status == 403


def test_life_events_order_validation_and_delete(api, db, employee, exec_user):
    contact = make_contact(db)
    path = f"{BASE}/contacts/{contact.id}/life-events"
    old = api.post(path, as_=employee, json={"event_type": "anniversary", "title": "Wedding",
                                             "event_date": "2010-06-01", "auto_action_enabled": False})
    assert old.status == 201, old
    new = api.post(path, as_=employee, json={"event_type": "promotion", "title": "Promoted",
                                             "event_date": "2025-01-01", "auto_action_enabled": False})
    undated = api.post(path, as_=employee, json={"event_type": "moved", "title": "Moved house",
                                                 "auto_action_enabled": False})
    events = api.get(path, as_=employee).json["events"]
    assert [e["id"] for e in events] == [new.json["event"]["id"], old.json["event"]["id"], undated.json["event"]["id"]]
    event = old.json["event"]
    assert (event["recurs_annually"], event["auto_action_enabled"], event["auto_action_days_before"]) == (0, 0, 7)
    for bad in ({"title": "x"}, {"event_type": "x"}, {"event_type": "x", "title": "y", "event_date": "2025-13-01"},
                {"event_type": "x", "title": "y", "auto_action_days_before": -1},
                {"event_type": "x", "title": "y", "auto_action_days_before": "7"},  # a JSON number
                {"event_type": "x", "title": "y", "auto_action_days_before": True},
                {"event_type": "x", "title": "y", "recurs_annually": "no"},
                {"event_type": "x", "title": "y", "company_id": "nope"}):
        assert api.post(path, as_=employee, json=bad).status == 400, bad
    patched = api.patch(f"{path}/{event['id']}", as_=employee, json={"title": "Wedding day", "recurs_annually": True})
    assert patched.status == 200 and patched.json["event"]["title"] == "Wedding day"
    assert patched.json["event"]["recurs_annually"] == 1
    assert api.patch(f"{path}/{event['id']}", as_=employee, json={"title": None}).status == 400
    assert api.delete(f"{path}/{event['id']}", as_=employee).status == 403  # manage
    assert api.delete(f"{path}/{event['id']}", as_=exec_user).json == {"ok": True}
    assert api.patch(f"{path}/{event['id']}", as_=exec_user, json={"title": "x"}).status == 404
    other = make_contact(db)
    assert api.patch(f"{BASE}/contacts/{other.id}/life-events/{new.json['event']['id']}", as_=employee,
                     json={"title": "x"}).status == 404  # another contact's event


def test_life_event_creates_its_auto_action_mirrored_to_the_action_centre(api, db, employee):
    company = make_company(db)
    contact = make_contact(db, company_id=company.id, first_name="Ana", last_name="Lee")
    today = org_today()
    soon = today + timedelta(days=20)
    made = api.post(f"{BASE}/contacts/{contact.id}/life-events", as_=employee, json={
        "event_type": "birthday", "title": "Birthday", "event_date": soon.replace(year=1985).isoformat()
        if not (soon.month == 2 and soon.day == 29) else "1984-02-29",
        "recurs_annually": True, "auto_action_days_before": 5})
    assert made.status == 201
    actions = api.get(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=employee).json["actions"]
    assert len(actions) == 1
    action = actions[0]
    assert action["is_auto"] == 1 and action["action_type"] == "card" and action["status"] == "pending"
    assert action["assigned_to_user_id"] == employee.id and action["company_id"] == company.id
    assert action["due_date"] == (date.fromisoformat(action["occurrence_date"]) - timedelta(days=5)).isoformat()
    assert (action["first_name"], action["last_name"], action["company_name"]) == ("Ana", "Lee", company.name)
    mirror = db.scalar(select(ActionItem).where(ActionItem.source_id == action["id"]))
    assert (mirror.source_module, mirror.assigned_to, mirror.contact_id) == ("relationships", employee.id, contact.id)
    # disabled, or a one-off event in the past: no auto-action
    for body in ({"event_type": "birthday", "title": "B", "event_date": "1990-01-01", "recurs_annually": True,
                  "auto_action_enabled": False},
                 {"event_type": "launch", "title": "Launch", "event_date": (today - timedelta(days=3)).isoformat()}):
        assert api.post(f"{BASE}/contacts/{contact.id}/life-events", as_=employee, json=body).status == 201
    assert db.scalar(select(RelationshipAction.id).where(RelationshipAction.contact_id == contact.id)
                     .offset(1)) is None


def test_a_future_recurring_event_gets_its_auto_action_for_its_own_date(api, db, employee):
    """docs/decisions/relationships.md, Life events: a recurring event dated in the future occurs first on its own
    date. A wedding planned two years ahead got an auto-action (a gift) for its "anniversary" a year before it
    (date audit)."""
    contact = make_contact(db)
    day = org_today() + timedelta(days=800)
    if day.month == 2 and day.day == 29:
        day += timedelta(days=1)
    made = api.post(f"{BASE}/contacts/{contact.id}/life-events", as_=employee, json={
        "event_type": "anniversary", "title": "Wedding", "event_date": day.isoformat(), "recurs_annually": True,
        "auto_action_days_before": 7})
    assert made.status == 201, made
    actions = api.get(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=employee).json["actions"]
    assert [(a["occurrence_date"], a["due_date"], a["action_type"]) for a in actions] == [
        (day.isoformat(), (day - timedelta(days=7)).isoformat(), "gift")], actions


def test_auto_action_title_fits_for_a_long_title_and_contact_name(api, db, employee):
    """An event title of 300 characters on a contact with 200-character names is valid input: the event and its
    auto-action are made (the title `<event title> (<contact name>, <date>)` shortened to fit 500 characters)."""
    contact = make_contact(db, first_name="F" * 200, last_name="L" * 200)
    day = org_today() + timedelta(days=3)
    made = api.post(f"{BASE}/contacts/{contact.id}/life-events", as_=employee, json={
        "event_type": "launch", "title": "T" * 300, "event_date": day.isoformat()})
    assert made.status == 201, made
    actions = api.get(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=employee).json["actions"]
    assert len(actions) == 1
    title = actions[0]["title"]
    assert len(title) <= 500 and title.startswith("T" * 300 + " (FFF") and title.endswith(f", {day.isoformat()})")
    mirror = db.scalar(select(ActionItem).where(ActionItem.source_id == actions[0]["id"]))
    assert mirror.title == title
