"""Relationship actions: scoping, default assignee, the action-centre mirror both ways, statement counts."""
import pytest
from sqlalchemy import select

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.areas.relationships.models import RelationshipAction
from tests.areas.deals.factories import make_company, make_contact
from tests.factories import make_squad, make_user

BASE = "/api/relationships"


def _action(db, user, contact=None, **values):
    action = RelationshipAction(contact_id=(contact or make_contact(db)).id, title="Call", action_type="call",
                                assigned_to_user_id=user.id if user else None, status="pending", is_auto=False,
                                **values)
    db.add(action)
    db.flush()
    return action


@pytest.mark.smoke
def test_create_defaults_to_the_caller_and_is_mirrored(api, db, employee):
    company = make_company(db)
    contact = make_contact(db, company_id=company.id, email="ana@client.test")
    made = api.post(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=employee, json={
        "title": "Send flowers", "action_type": "gift", "due_date": "2031-05-01", "message_body": "Congrats"})
    assert made.status == 201, made
    action = made.json["action"]
    assert (action["assigned_to_user_id"], action["assigned_to_name"], action["status"]) == (
        employee.id, employee.name, "pending")
    assert (action["contact_email"], action["company_id"], action["company_name"]) == (
        "ana@client.test", company.id, company.name)
    listed = api.get(f"{BASE}/relationship-actions", as_=employee).json["actions"]
    assert [a for a in listed if a["id"] == action["id"]] == [action]  # the list's record is the create's
    item = db.scalar(select(ActionItem).where(ActionItem.source_id == action["id"]))
    assert (item.source_module, item.source_type, item.title, item.assigned_to, str(item.due_date)) == (
        "relationships", "relationship_action", "Send flowers", employee.id, "2031-05-01")
    other = make_user(db)
    assigned = api.post(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=employee,
                        json={"title": "Call", "action_type": "call", "assigned_to_user_id": other.id})
    assert assigned.json["action"]["assigned_to_user_id"] == other.id
    for bad, field in (({"action_type": "call"}, "title"), ({"title": "x"}, "action_type"),
                       ({"title": "x", "action_type": "call", "assigned_to_user_id": "nobody"}, "assigned_to_user_id"),
                       ({"title": "x", "action_type": "call", "company_id": "nope"}, "company_id"),
                       ({"title": "x", "action_type": "call", "due_date": "soon"}, "due_date")):
        refused = api.post(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=employee, json=bad)
        assert refused.status == 400 and refused.json["details"][0]["field"] == field, (bad, refused)
    assert api.post(f"{BASE}/contacts/missing/relationship-actions", as_=employee,
                    json={"title": "x", "action_type": "call"}).status == 404


def test_scoping_per_access_level(api, db, employee):
    squad = make_squad(db)
    manager = make_user(db, access_level="manager")
    squad.manager_id = manager.id
    member = make_user(db, squad_id=squad.id)
    outsider = make_user(db)
    head = make_user(db, access_level="head")
    executive = make_user(db, access_level="executive")
    mine = _action(db, employee)
    members = _action(db, member)
    managers = _action(db, manager)
    outsiders = _action(db, outsider)
    db.flush()

    def ids(user):
        answer = api.get(f"{BASE}/relationship-actions", as_=user)
        assert answer.status == 200, answer
        return {a["id"] for a in answer.json["actions"]}

    assert ids(employee) == {mine.id}
    assert ids(manager) == {managers.id, members.id}
    assert ids(head) == ids(executive) == {mine.id, members.id, managers.id, outsiders.id}
    assert api.patch(f"{BASE}/relationship-actions/{outsiders.id}", as_=employee, json={"status": "done"}).status == 404
    assert api.patch(f"{BASE}/relationship-actions/{outsiders.id}", as_=manager, json={"status": "done"}).status == 404
    assert api.patch(f"{BASE}/relationship-actions/{members.id}", as_=manager, json={"status": "done"}).status == 200
    contact_list = api.get(f"{BASE}/contacts/{mine.contact_id}/relationship-actions", as_=outsider).json["actions"]
    assert contact_list == []  # the contact's actions the caller may see


def test_completion_both_ways(api, db, employee):
    contact = make_contact(db)
    first = api.post(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=employee,
                     json={"title": "Call", "action_type": "call"}).json["action"]
    second = api.post(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=employee,
                      json={"title": "Card", "action_type": "card"}).json["action"]
    # done here: the action centre's item is completed
    done = api.patch(f"{BASE}/relationship-actions/{first['id']}", as_=employee, json={"status": "done"})
    assert done.status == 200 and done.json["action"]["status"] == "done" and done.json["action"]["completed_at"]
    open_items = api.get("/api/action-items", as_=employee).json["action_items"]
    assert [i["source_id"] for i in open_items] == [second["id"]]
    # completed in the action centre: the relationship action is done
    item_id = open_items[0]["id"]
    assert api.post(f"/api/action-items/{item_id}/complete", as_=employee).json == {"ok": True}
    actions = {a["id"]: a for a in api.get(f"{BASE}/contacts/{contact.id}/relationship-actions",
                                           as_=employee).json["actions"]}
    assert actions[second["id"]]["status"] == "done"
    assert api.get("/api/action-items", as_=employee).json["action_items"] == []
    # dismissed also takes the item off the queue
    third = api.post(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=employee,
                     json={"title": "Lunch", "action_type": "call"}).json["action"]
    dismissed = api.patch(f"{BASE}/relationship-actions/{third['id']}", as_=employee, json={"status": "dismissed"})
    assert dismissed.json["action"]["status"] == "dismissed"
    assert api.get("/api/action-items", as_=employee).json["action_items"] == []
    assert api.patch(f"{BASE}/relationship-actions/{third['id']}", as_=employee, json={"status": "open"}).status == 400
    # a mirrored item cannot be deleted in the action centre (it is not manual)
    assert api.delete(f"/api/action-items/{item_id}", as_=employee).status == 400


def test_lists_cost_constant_statements(api, db, exec_user, count_queries):
    def cost(n):
        company = make_company(db)
        contact = make_contact(db, company_id=company.id)
        users = [make_user(db) for _ in range(3)]
        for i in range(n):
            _action(db, users[i % 3], contact if i % 2 else make_contact(db, company_id=company.id))
        counts = []
        for path in (f"{BASE}/relationship-actions", f"{BASE}/contacts/{contact.id}/relationship-actions"):
            with count_queries() as counter:
                answer = api.get(path, as_=exec_user)
            assert answer.status == 200
            counts.append(counter.count)
        return counts

    assert cost(5) == cost(100)
