"""Companies and contacts under /api/deals (tool deals)."""
import pytest

from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.factories import grant, make_user


@pytest.mark.smoke
def test_company_create_get_update_delete(api, exec_user):
    created = api.post("/api/deals/companies", as_=exec_user, json={
        "name": "  Acme Pty Ltd ", "domain": "acme.test", "website": "https://acme.test", "industry": "Retail",
        "phone": "+61 2 0000 0000", "address": "1 George St", "status": "client", "unknown_field": "ignored"})
    assert created.status == 201, created
    company = created.json["company"]
    assert company["name"] == "Acme Pty Ltd"
    assert company["status"] == "client"
    assert company["owner_id"] == exec_user.id and company["owner_name"] == "Erin Exec"
    assert company["network_data"] is None and company["created_at"].endswith("Z")
    assert "unknown_field" not in company

    detail = api.get(f"/api/deals/companies/{company['id']}", as_=exec_user)
    assert detail.status == 200
    assert detail.json == {"company": company, "contacts": [], "deals": []}

    updated = api.put(f"/api/deals/companies/{company['id']}", as_=exec_user,
                      json={"status": "prospect", "industry": None, "created_at": "2000-01-01T00:00:00Z"})
    assert updated.status == 200
    assert updated.json["company"]["status"] == "prospect"
    assert updated.json["company"]["industry"] is None
    assert updated.json["company"]["name"] == "Acme Pty Ltd"
    assert updated.json["company"]["created_at"] == company["created_at"]

    deleted = api.delete(f"/api/deals/companies/{company['id']}", as_=exec_user)
    assert deleted.status == 200 and deleted.json == {"ok": True}
    assert api.get(f"/api/deals/companies/{company['id']}", as_=exec_user).status == 404


def test_company_validation(api, exec_user):
    missing = api.post("/api/deals/companies", as_=exec_user, json={"domain": "x.test"})
    assert missing.status == 400
    assert [d["field"] for d in missing.json["details"]] == ["name"]
    assert api.post("/api/deals/companies", as_=exec_user, json={"name": "   "}).status == 400
    bad_status = api.post("/api/deals/companies", as_=exec_user, json={"name": "X", "status": "lead"})
    assert bad_status.status == 400 and bad_status.json["details"][0]["field"] == "status"
    bad_owner = api.post("/api/deals/companies", as_=exec_user, json={"name": "X", "owner_id": "nope"})
    assert bad_owner.status == 400 and "owner_id" in bad_owner.json["error"]
    assert api.post("/api/deals/companies", as_=exec_user, body="{not json",
                    headers={"Content-Type": "application/json"}).status == 400
    company = api.post("/api/deals/companies", as_=exec_user, json={"name": "X"}).json["company"]
    assert company["status"] == "prospect"
    assert api.put(f"/api/deals/companies/{company['id']}", as_=exec_user, json={"name": None}).status == 400
    assert api.put(f"/api/deals/companies/{company['id']}", as_=exec_user, json={"status": "gone"}).status == 400


def test_company_not_found(api, exec_user):
    assert api.get("/api/deals/companies/missing", as_=exec_user).status == 404
    assert api.put("/api/deals/companies/missing", as_=exec_user, json={"name": "Y"}).status == 404
    response = api.delete("/api/deals/companies/missing", as_=exec_user)
    assert response.status == 404 and response.json == {"error": "Company not found"}


def test_company_permissions(api, db, employee):
    company = make_company(db)
    assert api.get("/api/deals/companies").status == 401
    assert api.get("/api/deals/companies", as_=employee).status == 200
    assert api.post("/api/deals/companies", as_=employee, json={"name": "Mine"}).status == 201
    assert api.put(f"/api/deals/companies/{company.id}", as_=employee, json={"name": "Z"}).status == 200
    # employees hold deals:update, not manage: no delete
    assert api.delete(f"/api/deals/companies/{company.id}", as_=employee).status == 403
    viewer = make_user(db)
    grant(db, viewer, "deals", "view")
    assert api.get(f"/api/deals/companies/{company.id}", as_=viewer).status == 200
    assert api.post("/api/deals/companies", as_=viewer, json={"name": "No"}).status == 403
    assert api.put(f"/api/deals/companies/{company.id}", as_=viewer, json={"name": "No"}).status == 403
    nobody = make_user(db)
    grant(db, nobody, "deals", "none")
    assert api.get("/api/deals/companies", as_=nobody).status == 403
    assert api.get(f"/api/deals/companies/{company.id}", as_=nobody).status == 403


def test_company_search_and_pagination(api, db, exec_user):
    for n in range(55):
        make_company(db, name=f"Bulk {n:02d}")
    make_company(db, name="Zeta Corp", domain="zeta.example")
    make_company(db, name="100% Real", domain="real.example")
    first = api.get("/api/deals/companies", as_=exec_user)
    assert first.status == 200
    assert first.json["total"] == 57 and first.json["page"] == 1 and len(first.json["companies"]) == 50
    names = [c["name"] for c in first.json["companies"]]
    assert names == sorted(names, key=str.lower)
    second = api.get("/api/deals/companies?page=2", as_=exec_user).json
    assert second["page"] == 2 and second["total"] == 57 and len(second["companies"]) == 7
    assert not {c["id"] for c in second["companies"]} & {c["id"] for c in first.json["companies"]}
    assert api.get("/api/deals/companies?page=3", as_=exec_user).json["companies"] == []

    by_domain = api.get("/api/deals/companies?search=ZETA.EXAM", as_=exec_user).json
    assert [c["name"] for c in by_domain["companies"]] == ["Zeta Corp"] and by_domain["total"] == 1
    by_name = api.get("/api/deals/companies?search=bulk 0", as_=exec_user).json
    assert by_name["total"] == 10
    # % is matched literally, not as a wildcard
    percent = api.get("/api/deals/companies?search=0%25", as_=exec_user).json
    assert [c["name"] for c in percent["companies"]] == ["100% Real"]

    for bad in ("page=0", "page=-1", "page=abc"):
        response = api.get(f"/api/deals/companies?{bad}", as_=exec_user)
        assert response.status == 400 and response.json["details"][0]["field"] == "page"


def test_company_detail_lists_contacts_and_deals(api, db, exec_user):
    company = make_company(db, name="Acme")
    other = make_company(db, name="Other")
    alice = make_contact(db, first_name="Alice", last_name="Ng", company_id=company.id)
    make_contact(db, first_name="Bob", company_id=other.id)
    deal = make_deal(db, title="Website", company_id=company.id, contact_id=alice.id)
    make_deal(db, title="Elsewhere", company_id=other.id)
    body = api.get(f"/api/deals/companies/{company.id}", as_=exec_user).json
    assert [c["id"] for c in body["contacts"]] == [alice.id]
    assert body["contacts"][0]["name"] == "Alice Ng" and body["contacts"][0]["company_name"] == "Acme"
    assert [d["id"] for d in body["deals"]] == [deal.id]
    assert body["deals"][0]["contact_name"] == "Alice Ng"


def test_delete_company_with_deals_is_409_and_detaches_contacts(api, db, exec_user):
    company = make_company(db)
    contact = make_contact(db, company_id=company.id)
    deal = make_deal(db, company_id=company.id)
    conflict = api.delete(f"/api/deals/companies/{company.id}", as_=exec_user)
    assert conflict.status == 409 and "deal" in conflict.json["error"]
    assert api.get(f"/api/deals/companies/{company.id}", as_=exec_user).status == 200

    assert api.delete(f"/api/deals/deals/{deal.id}", as_=exec_user).status == 200
    assert api.delete(f"/api/deals/companies/{company.id}", as_=exec_user).status == 200
    kept = api.get(f"/api/deals/contacts/{contact.id}", as_=exec_user)
    assert kept.status == 200
    assert kept.json["contact"]["company_id"] is None and kept.json["contact"]["company_name"] is None


def test_company_list_query_count_is_constant(api, db, exec_user, count_queries):
    owner = make_user(db)
    for n in range(5):
        make_company(db, owner_id=owner.id)
    with count_queries() as five:
        assert len(api.get("/api/deals/companies", as_=exec_user).json["companies"]) == 5
    for n in range(55):
        make_company(db, owner_id=make_user(db).id)
    with count_queries() as sixty:
        assert len(api.get("/api/deals/companies", as_=exec_user).json["companies"]) == 50
    assert five.count == sixty.count


# ---- contacts ----

@pytest.mark.smoke
def test_contact_create_get_update_delete(api, db, exec_user):
    company = make_company(db, name="Acme")
    created = api.post("/api/deals/contacts", as_=exec_user, json={
        "first_name": "Alice", "last_name": "Ng", "email": "alice@acme.test", "phone": "0400 000 000",
        "job_title": "CTO", "company_id": company.id, "network_url": "https://network.test/in/alice"})
    assert created.status == 201, created
    contact = created.json["contact"]
    assert contact["name"] == "Alice Ng" and contact["company_name"] == "Acme"
    assert contact["email"] == "alice@acme.test" and contact["network_enriched_at"] is None

    detail = api.get(f"/api/deals/contacts/{contact['id']}", as_=exec_user)
    assert detail.status == 200 and detail.json == {"contact": contact, "deals": []}

    updated = api.put(f"/api/deals/contacts/{contact['id']}", as_=exec_user,
                      json={"last_name": None, "company_id": None, "name": "ignored"})
    assert updated.status == 200
    assert updated.json["contact"]["name"] == "Alice"
    assert updated.json["contact"]["company_id"] is None and updated.json["contact"]["company_name"] is None

    assert api.delete(f"/api/deals/contacts/{contact['id']}", as_=exec_user).json == {"ok": True}
    assert api.get(f"/api/deals/contacts/{contact['id']}", as_=exec_user).status == 404


def test_contact_validation_and_not_found(api, db, exec_user):
    assert api.post("/api/deals/contacts", as_=exec_user, json={"last_name": "Ng"}).status == 400
    bad_email = api.post("/api/deals/contacts", as_=exec_user, json={"first_name": "A", "email": "not-an-email"})
    assert bad_email.status == 400 and bad_email.json["details"][0]["field"] == "email"
    bad_company = api.post("/api/deals/contacts", as_=exec_user, json={"first_name": "A", "company_id": "nope"})
    assert bad_company.status == 400 and "company_id" in bad_company.json["error"]
    contact = make_contact(db)
    assert api.put(f"/api/deals/contacts/{contact.id}", as_=exec_user, json={"company_id": "nope"}).status == 400
    assert api.put(f"/api/deals/contacts/{contact.id}", as_=exec_user, json={"first_name": ""}).status == 400
    assert api.get("/api/deals/contacts/missing", as_=exec_user).status == 404
    assert api.put("/api/deals/contacts/missing", as_=exec_user, json={"first_name": "A"}).status == 404
    assert api.delete("/api/deals/contacts/missing", as_=exec_user).status == 404


def test_contact_permissions(api, db, employee):
    contact = make_contact(db)
    assert api.post("/api/deals/contacts", as_=employee, json={"first_name": "A"}).status == 201
    assert api.delete(f"/api/deals/contacts/{contact.id}", as_=employee).status == 403
    viewer = make_user(db)
    grant(db, viewer, "deals", "view")
    assert api.get("/api/deals/contacts", as_=viewer).status == 200
    assert api.put(f"/api/deals/contacts/{contact.id}", as_=viewer, json={"first_name": "B"}).status == 403
    nobody = make_user(db)
    grant(db, nobody, "deals", "none")
    assert api.get(f"/api/deals/contacts/{contact.id}", as_=nobody).status == 403


def test_contact_search_filter_and_pagination(api, db, exec_user):
    acme = make_company(db, name="Acme")
    make_contact(db, first_name="Alice", last_name="Ng", email="alice@acme.test", company_id=acme.id)
    make_contact(db, first_name="Bob", last_name="Stone", email="bob@else.test")
    for n in range(51):
        make_contact(db, first_name="Zed", last_name=f"{n:02d}", company_id=acme.id)
    everyone = api.get("/api/deals/contacts", as_=exec_user).json
    assert everyone["total"] == 53 and len(everyone["contacts"]) == 50 and everyone["page"] == 1
    assert api.get("/api/deals/contacts?page=2", as_=exec_user).json["contacts"].__len__() == 3
    assert [c["name"] for c in api.get("/api/deals/contacts?search=alice ng", as_=exec_user).json["contacts"]] == ["Alice Ng"]
    assert [c["name"] for c in api.get("/api/deals/contacts?search=STONE", as_=exec_user).json["contacts"]] == ["Bob Stone"]
    assert [c["name"] for c in api.get("/api/deals/contacts?search=else.test", as_=exec_user).json["contacts"]] == ["Bob Stone"]
    filtered = api.get(f"/api/deals/contacts?company_id={acme.id}", as_=exec_user).json
    assert filtered["total"] == 52 and all(c["company_name"] == "Acme" for c in filtered["contacts"])
    combined = api.get(f"/api/deals/contacts?company_id={acme.id}&search=bob", as_=exec_user).json
    assert combined == {"contacts": [], "total": 0, "page": 1}
    assert api.get("/api/deals/contacts?page=0", as_=exec_user).status == 400


def test_contact_detail_lists_deals_and_delete_detaches_them(api, db, exec_user):
    contact = make_contact(db, first_name="Carla")
    deal = make_deal(db, title="Retainer", contact_id=contact.id)
    make_deal(db, title="Other")
    body = api.get(f"/api/deals/contacts/{contact.id}", as_=exec_user).json
    assert [d["id"] for d in body["deals"]] == [deal.id]
    assert api.delete(f"/api/deals/contacts/{contact.id}", as_=exec_user).status == 200
    kept = api.get(f"/api/deals/deals/{deal.id}", as_=exec_user)
    assert kept.status == 200 and kept.json["deal"]["contact_id"] is None and kept.json["deal"]["contact_name"] is None


def test_contact_delete_takes_its_relationship_actions_out_of_the_action_centre(api, db, exec_user):
    """docs/decisions/deals.md: a contact's relationship actions go with it (their key cascades), and so do their
    action-centre items, open or completed (they named an action and a contact that were gone, and could not be
    deleted there: not manual). Another contact's stay."""
    from datetime import timedelta

    from chalicelib.core.timeutil import org_today

    others_user = make_user(db, name="Other Assignee")
    company = make_company(db, name="Acme")
    gone, kept = make_contact(db, first_name="Gone", company_id=company.id), make_contact(db, first_name="Kept")
    base = "/api/relationships/contacts"

    def act(contact, **body):
        made = api.post(f"{base}/{contact.id}/relationship-actions", as_=exec_user,
                        json={"title": f"Call {contact.first_name}", "action_type": "call", **body})
        assert made.status == 201, made
        return made.json["action"]["id"]

    mine, theirs, done, stays = act(gone), act(gone, assigned_to_user_id=others_user.id), act(gone), act(kept)
    assert api.patch(f"/api/relationships/relationship-actions/{done}", as_=exec_user,
                     json={"status": "done"}).status == 200  # its item completed
    event = api.post(f"{base}/{gone.id}/life-events", as_=exec_user, json={
        "event_type": "birthday", "title": "Birthday", "event_date": str(org_today() + timedelta(days=3))})
    assert event.status == 201, event  # with its auto-action, mirrored too

    def mirrored(contact_id):
        items = [i for flag in ("0", "1")
                 for i in api.get(f"/api/action-items?is_completed={flag}", as_=exec_user).json["action_items"]]
        return sorted((i["source_module"], i["is_completed"]) for i in items if i["contact_id"] == contact_id)

    assert mirrored(gone.id) == [("relationships", 0)] * 3 + [("relationships", 1)]
    assert api.delete(f"/api/deals/contacts/{gone.id}", as_=exec_user).status == 200
    assert mirrored(gone.id) == []
    assert mirrored(kept.id) == [("relationships", 0)]
    assert api.get("/api/action-items", as_=others_user).json["action_items"] == []
    kept_actions = api.get(f"{base}/{kept.id}/relationship-actions", as_=exec_user).json["actions"]
    assert [a["id"] for a in kept_actions] == [stays] and {mine, theirs, done}.isdisjoint({stays})


def test_contact_delete_costs_constant_statements(api, db, exec_user, count_queries):
    """The action-centre items of a contact's relationship actions go in one statement whatever their number."""
    from chalicelib.areas.action_items.models import ActionItem
    from chalicelib.areas.relationships.models import RelationshipAction

    def cost(n):
        contact = make_contact(db)
        for i in range(n):
            action = RelationshipAction(contact_id=contact.id, title=f"Call {i}", action_type="call", status="pending",
                                        is_auto=False, assigned_to_user_id=exec_user.id)
            db.add(action)
            db.flush()
            db.add(ActionItem(title=action.title, contact_id=contact.id, assigned_to=exec_user.id, urgency="normal",
                              source_module="relationships", source_type="relationship_action", source_id=action.id,
                              is_completed=False))
        db.flush()
        with count_queries() as counter:
            assert api.delete(f"/api/deals/contacts/{contact.id}", as_=exec_user).status == 200
        return counter.count

    assert cost(1) == cost(20)


def test_a_company_holds_at_most_500_contacts(api, db, exec_user):
    from chalicelib.areas.deals.models import Contact

    company = make_company(db)
    db.add_all([Contact(first_name=f"c{n}", company_id=company.id) for n in range(500)])
    db.flush()
    response = api.post("/api/deals/contacts", as_=exec_user, json={"first_name": "Late", "company_id": company.id})
    assert response.status == 409 and "500 contacts" in response.json["error"]
    other = make_contact(db)
    assert api.put(f"/api/deals/contacts/{other.id}", as_=exec_user, json={"company_id": company.id}).status == 409
    assert len(api.get(f"/api/deals/companies/{company.id}", as_=exec_user).json["contacts"]) == 500
