"""Client profiles at /api/clients/{company_id}/profile (tool deals), made when a company becomes a client."""
from chalicelib.areas.clients import service as clients_service
from tests.areas.deals.factories import make_company
from tests.factories import grant, make_user


def test_profile_made_when_a_company_becomes_a_client(api, db, employee):
    made = api.post("/api/deals/companies", as_=employee, json={"name": "Acme", "status": "client"}).json["company"]
    profile = api.get(f"/api/clients/{made['id']}/profile", as_=employee)
    assert profile.status == 200, profile
    body = profile.json["profile"]
    assert (body["company_id"], body["dashboard_enabled"], body["portal_visibility"], body["client_group"]) == (
        made["id"], 0, {}, None)
    prospect = make_company(db)
    assert api.get(f"/api/clients/{prospect.id}/profile", as_=employee).status == 404
    assert clients_service.client_profile_for_company(db, prospect.id) is None
    api.put(f"/api/deals/companies/{prospect.id}", as_=employee, json={"status": "client"})
    api.put(f"/api/deals/companies/{prospect.id}", as_=employee, json={"name": "Renamed"})  # still one profile
    assert clients_service.client_profile_for_company(db, prospect.id)["company_id"] == prospect.id


def test_profile_edit(api, db, employee):
    company_id = api.post("/api/deals/companies", as_=employee, json={"name": "Acme", "status": "client"}).json[
        "company"]["id"]
    manager = make_user(db, access_level="manager")
    edited = api.put(f"/api/clients/{company_id}/profile", as_=employee, json={
        "dashboard_enabled": True, "delivery_manager_id": manager.id, "portal_visibility": {"invoices": True},
        "client_group": "Acme Group"})
    assert edited.status == 200, edited
    body = edited.json["profile"]
    assert (body["dashboard_enabled"], body["delivery_manager_id"], body["portal_visibility"], body["client_group"]) == (
        1, manager.id, {"invoices": True}, "Acme Group")
    for bad in ({"delivery_manager_id": "nobody"}, {"dashboard_enabled": "yes"}, {"portal_visibility": None}):
        assert api.put(f"/api/clients/{company_id}/profile", as_=employee, json=bad).status == 400, bad
    grant(db, employee, "deals", "view")
    assert api.put(f"/api/clients/{company_id}/profile", as_=employee, json={}).status == 403


def test_a_blank_client_group_is_no_group(api, db, employee):
    """decisions.md section 6: client_group is a label, null by default (no group); a blank one is stored as null,
    not as an empty label shared by every company given one."""
    company_id = api.post("/api/deals/companies", as_=employee, json={"name": "Acme", "status": "client"}).json[
        "company"]["id"]
    path = f"/api/clients/{company_id}/profile"
    assert api.put(path, as_=employee, json={"client_group": " Acme Group "}).json["profile"]["client_group"] == (
        "Acme Group")
    for blank in ("", "   "):
        cleared = api.put(path, as_=employee, json={"client_group": blank})
        assert cleared.status == 200 and cleared.json["profile"]["client_group"] is None, (blank, cleared)


def test_a_profile_sent_back_with_its_deactivated_delivery_manager_saves(api, db, employee):
    """Session 25: the active check applies to a delivery manager set or changed, as every area's user fields do;
    a form sending the profile back as read (its manager since deactivated) saved no other change."""
    from tests.factories import make_user

    company_id = api.post("/api/deals/companies", as_=employee, json={"name": "Acme", "status": "client"}).json[
        "company"]["id"]
    manager = make_user(db)
    path = f"/api/clients/{company_id}/profile"
    assert api.put(path, as_=employee, json={"delivery_manager_id": manager.id}).status == 200
    manager.is_active = False
    db.flush()
    profile = api.get(path, as_=employee).json["profile"]
    sent_back = {key: profile[key] for key in ("dashboard_enabled", "delivery_manager_id", "portal_visibility",
                                               "client_group")}
    answer = api.put(path, as_=employee, json={**sent_back, "client_group": "Group B"})
    assert answer.status == 200, answer.json
    assert (answer.json["profile"]["client_group"], answer.json["profile"]["delivery_manager_id"]) == (
        "Group B", manager.id)
    other = make_user(db)
    other.is_active = False
    db.flush()
    refused = api.put(path, as_=employee, json={"delivery_manager_id": other.id})
    assert refused.status == 400 and refused.json["details"][0]["field"] == "delivery_manager_id"
