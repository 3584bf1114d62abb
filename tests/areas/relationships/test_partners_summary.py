"""Partners of client companies, the relationship summary, and the draft client win of a completed project."""
from datetime import timedelta

import pytest
from sqlalchemy import select

from chalicelib.areas.relationships.models import (ClientWin, LifeEvent, RelationshipAction, RelationshipMessage,
                                                   RelationshipProfile)
from chalicelib.core.notify import Notification
from chalicelib.core.timeutil import org_today
from tests.areas.deals.factories import make_company, make_contact
from tests.areas.projects.factories import make_project
from tests.factories import make_user

BASE = "/api/relationships"


def _client(api, user, name="Client Co"):
    made = api.post("/api/deals/companies", as_=user, json={"name": name, "status": "client"})
    assert made.status == 201, made
    return made.json["company"]["id"]


@pytest.mark.smoke
def test_partners_need_a_client_profile(api, db, employee, exec_user):
    prospect = make_company(db)
    assert api.get(f"{BASE}/companies/{prospect.id}/partners", as_=employee).status == 404
    assert api.post(f"{BASE}/companies/{prospect.id}/partners", as_=employee,
                    json={"partner_company_name": "Agency"}).status == 404
    # a prospect that becomes a client gets its profile
    assert api.put(f"/api/deals/companies/{prospect.id}", as_=employee, json={"status": "client"}).status == 200
    assert api.get(f"{BASE}/companies/{prospect.id}/partners", as_=employee).json == {"partners": []}
    company_id = _client(api, employee)
    contact = make_contact(db, company_id=company_id)
    made = api.post(f"{BASE}/companies/{company_id}/partners", as_=employee, json={
        "partner_company_name": " Shopify Plus Agency ", "partner_contact_email": "p@partner.test",
        "estimated_deal_size": 15000.5, "relationship_type": "referral", "contact_id": contact.id})
    assert made.status == 201, made
    partner = made.json["partner"]
    assert partner["partner_company_name"] == "Shopify Plus Agency" and partner["estimated_deal_size"] == 15000.5
    path = f"{BASE}/companies/{company_id}/partners/{partner['id']}"
    assert api.patch(path, as_=employee, json={"notes": "Met at the expo"}).json["partner"]["notes"] == "Met at the expo"
    for bad in ({"partner_company_name": None}, {"estimated_deal_size": -1}, {"partner_contact_email": "x"},
                {"contact_id": "nope"}):
        assert api.patch(path, as_=employee, json=bad).status == 400, bad
    assert api.post(f"{BASE}/companies/{company_id}/partners", as_=employee, json={}).status == 400
    assert api.patch(f"{BASE}/companies/{prospect.id}/partners/{partner['id']}", as_=employee,
                     json={"notes": "x"}).status == 404  # another client's partner
    assert api.delete(path, as_=employee).status == 403
    assert api.delete(path, as_=exec_user).json == {"ok": True}
    assert api.get(f"{BASE}/companies/{company_id}/partners", as_=employee).json == {"partners": []}


def _fill(db, company_id: str, user, n: int):
    today = org_today()
    contacts = [make_contact(db, company_id=company_id) for _ in range(max(2, n // 10))]
    for index, contact in enumerate(contacts):
        db.add(RelationshipProfile(contact_id=contact.id, interests=[], sms_opt_in=index % 2 == 0,
                                   communication_preference="email"))
    for i in range(n):
        contact = contacts[i % len(contacts)]
        db.add(LifeEvent(contact_id=contact.id, event_type="birthday", title=f"E{i}", recurs_annually=i % 3 == 0,
                         event_date=today + timedelta(days=(i * 7) % 200), auto_action_enabled=False,
                         auto_action_days_before=7))
        db.add(RelationshipAction(contact_id=contact.id, title=f"A{i}", action_type="call",
                                  assigned_to_user_id=user.id, status="pending" if i % 4 else "done", is_auto=False))
        db.add(RelationshipMessage(contact_id=contact.id, channel="sms", body=f"M{i}", to_number="+61412345678",
                                   status="queued"))
    db.flush()
    return contacts


def test_summary(api, db, employee):
    company_id = _client(api, employee)
    other = make_company(db)
    _fill(db, other.id, employee, 5)  # another company's records stay out
    contacts = _fill(db, company_id, employee, 20)
    api.post(f"{BASE}/companies/{company_id}/partners", as_=employee, json={"partner_company_name": "P"})
    answer = api.get(f"{BASE}/clients/{company_id}/relationship-summary", as_=employee)
    assert answer.status == 200, answer
    body = answer.json
    assert {c["id"] for c in body["contacts"]} == {c.id for c in contacts}
    assert all(c["communication_preference"] == "email" for c in body["contacts"])
    today = org_today()
    for event in body["events"]:
        assert event["recurs_annually"] == 1 or (
            today.isoformat() <= event["event_date"] <= (today + timedelta(days=90)).isoformat())
    expected = sum(1 for i in range(20) if i % 3 == 0 or (i * 7) % 200 <= 90)
    assert len(body["events"]) == expected
    assert len(body["actions"]) == 15 and all(a["status"] == "pending" for a in body["actions"])
    assert [p["partner_company_name"] for p in body["partners"]] == ["P"]
    assert len(body["messages"]) == 10
    # pending actions in the caller's scope only
    outsider = make_user(db)
    assert api.get(f"{BASE}/clients/{company_id}/relationship-summary", as_=outsider).json["actions"] == []
    assert api.get(f"{BASE}/clients/missing/relationship-summary", as_=employee).status == 404


def test_summary_costs_constant_statements(api, db, exec_user, count_queries):
    def cost(n):
        company_id = _client(api, exec_user, name=f"Co {n}")
        _fill(db, company_id, make_user(db), n)
        with count_queries() as counter:
            answer = api.get(f"{BASE}/clients/{company_id}/relationship-summary", as_=exec_user)
        assert answer.status == 200
        return counter.count

    assert cost(5) == cost(100)


def test_completed_project_makes_a_draft_client_win(api, db, exec_user):
    manager = make_user(db, access_level="manager")
    company = make_company(db)
    project = make_project(db, company_id=company.id, delivery_manager_id=manager.id, owner_id=exec_user.id)
    assert api.put(f"/api/projects/{project.id}", as_=exec_user, json={"status": "completed"}).status == 200
    wins = db.scalars(select(ClientWin).where(ClientWin.project_id == project.id)).all()
    assert [(w.company_id, w.status) for w in wins] == [(company.id, "draft")] and project.name in wins[0].summary
    notified = db.scalars(select(Notification).where(Notification.user_id == manager.id)).all()
    assert [n.type for n in notified] == ["project_completed"]
    # completed again (after a reopen): still one draft per project
    api.put(f"/api/projects/{project.id}", as_=exec_user, json={"status": "active"})
    api.put(f"/api/projects/{project.id}", as_=exec_user, json={"status": "completed"})
    assert len(db.scalars(select(ClientWin).where(ClientWin.project_id == project.id)).all()) == 1
    without = make_project(db, owner_id=exec_user.id)
    api.put(f"/api/projects/{without.id}", as_=exec_user, json={"status": "completed"})
    assert db.scalar(select(ClientWin).where(ClientWin.project_id == without.id)) is None
