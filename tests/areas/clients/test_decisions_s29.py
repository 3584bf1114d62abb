"""Session 29 (decisions documents against the code): clients.

docs/decisions/clients.md: "`POST /api/clients/{company_id}/profile` (deals:update): makes the company a client ...
409 when it has a profile already (every client has one: edit it with `PUT`)", and a profile "is not removed when the
company goes back to `prospect`". So a former client (a prospect again, its profile kept) has a profile without being
a client: the POST answered 409 and pointed to PUT, which edits the profile but never makes the company a client. The
409 is now for a company that is a client; a former client is made a client again with the body's fields (201)."""
from tests.areas.deals.factories import make_company


def test_a_former_client_is_made_a_client_again_by_the_profile_create(api, db, employee):
    company = make_company(db, name="Returning")
    path = f"/api/clients/{company.id}/profile"
    assert api.post(path, as_=employee, json={"client_group": "Old"}).status == 201
    back = api.put(f"/api/deals/companies/{company.id}", as_=employee, json={"status": "prospect"})
    assert back.status == 200 and back.json["company"]["status"] == "prospect"
    assert api.get(path, as_=employee).status == 200  # the profile was kept

    again = api.post(path, as_=employee, json={"client_group": "New", "dashboard_enabled": True})

    assert again.status == 201, again
    assert (again.json["profile"]["client_group"], again.json["profile"]["dashboard_enabled"]) == ("New", 1)
    assert api.get(f"/api/deals/companies/{company.id}", as_=employee).json["company"]["status"] == "client"
    assert api.post(path, as_=employee, json={}).status == 409  # a client: its profile is edited with PUT


def test_a_former_client_with_a_bad_field_stays_a_prospect(api, db, employee):
    company = make_company(db, name="Returning")
    path = f"/api/clients/{company.id}/profile"
    assert api.post(path, as_=employee, json={"client_group": "Old"}).status == 201
    api.put(f"/api/deals/companies/{company.id}", as_=employee, json={"status": "prospect"})

    assert api.post(path, as_=employee, json={"delivery_manager_id": "nobody"}).status == 400

    assert api.get(f"/api/deals/companies/{company.id}", as_=employee).json["company"]["status"] == "prospect"
    assert api.get(path, as_=employee).json["profile"]["client_group"] == "Old"
