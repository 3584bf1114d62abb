"""Deals at /api/deals/deals (tool deals)."""
import pytest

from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.factories import config_item, grant, make_user


@pytest.mark.smoke
def test_deal_create_defaults_and_joins(api, db, exec_user):
    company = make_company(db, name="Acme")
    contact = make_contact(db, first_name="Alice", last_name="Ng", company_id=company.id)
    created = api.post("/api/deals/deals", as_=exec_user, json={
        "title": "New website", "company_id": company.id, "contact_id": contact.id, "value": 12500.5,
        "website": "https://acme.test"})
    assert created.status == 201, created
    deal = created.json["deal"]
    lead = config_item(db, "deal_stage", "lead")
    assert deal["stage_id"] == lead.id  # the first stage of deal_stage
    assert deal["stage_label"] == "Lead" and deal["stage_color"] == lead.color and deal["probability"] == 10
    assert deal["owner_id"] == exec_user.id and deal["owner_name"] == "Erin Exec"
    assert deal["currency"] == "AUD" and deal["status"] == "open" and deal["value"] == 12500.5
    assert deal["company_name"] == "Acme" and deal["contact_name"] == "Alice Ng"
    assert api.get(f"/api/deals/deals/{deal['id']}", as_=exec_user).json == {"deal": deal}


def test_deal_update_and_delete(api, db, exec_user):
    deal = make_deal(db, title="Old")
    other_owner = make_user(db, name="Owen Owner")
    won = config_item(db, "deal_stage", "won")
    response = api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={
        "title": "Renamed", "status": "won", "stage_id": won.id, "owner_id": other_owner.id, "currency": "nzd",
        "value": None})
    assert response.status == 200, response
    body = response.json["deal"]
    assert body["title"] == "Renamed" and body["status"] == "won" and body["currency"] == "NZD"
    assert body["stage_label"] == "Won" and body["probability"] == 100 and body["owner_name"] == "Owen Owner"
    assert body["value"] is None
    assert api.delete(f"/api/deals/deals/{deal.id}", as_=exec_user).json == {"ok": True}
    assert api.get(f"/api/deals/deals/{deal.id}", as_=exec_user).status == 404


def test_a_deal_holding_a_budget_is_not_deleted(api, db, exec_user):
    """docs/decisions/deals.md: as a project's, a deal's delete is a 409 while budgets name it (their invoices hang
    off them; the budget named a deal answering 404), nothing changed; without them it goes."""
    deal = make_deal(db, title="Discovery deal")
    budget = api.post("/api/budgets", as_=exec_user, json={"name": "Discovery", "resource_type": "deal",
                                                           "resource_id": deal.id, "total_amount": "500"})
    assert budget.status == 201, budget
    bid = budget.json["budget"]["id"]
    refused = api.delete(f"/api/deals/deals/{deal.id}", as_=exec_user)
    assert refused.status == 409 and "1 budget:" in refused.json["error"], refused
    assert api.get(f"/api/deals/deals/{deal.id}", as_=exec_user).json["deal"]["title"] == "Discovery deal"
    after = api.get(f"/api/budgets/{bid}", as_=exec_user).json["budget"]
    assert (after["resource_type"], after["resource_id"]) == ("deal", deal.id)
    assert api.delete(f"/api/budgets/{bid}", as_=exec_user).status == 200
    assert api.delete(f"/api/deals/deals/{deal.id}", as_=exec_user).json == {"ok": True}
    assert api.get(f"/api/deals/deals/{deal.id}", as_=exec_user).status == 404
    # a budget cannot name the deleted deal
    again = api.post("/api/budgets", as_=exec_user, json={"name": "Late", "resource_type": "deal",
                                                          "resource_id": deal.id})
    assert again.status == 400 and again.json["details"][0]["field"] == "resource_id", again


def test_deal_validation(api, db, exec_user):
    task_status = config_item(db, "task_status", "todo")
    cases = [
        ({}, "title"),
        ({"title": " "}, "title"),
        ({"title": "T", "status": "pending"}, "status"),
        ({"title": "T", "value": -1}, "value"),
        ({"title": "T", "value": "lots"}, "value"),
        ({"title": "T", "currency": "dollars"}, "currency"),
    ]
    for body, field in cases:
        response = api.post("/api/deals/deals", as_=exec_user, json=body)
        assert response.status == 400, body
        assert response.json["details"][0]["field"] == field
    refs = [
        ({"title": "T", "stage_id": task_status.id}, "stage_id"),
        ({"title": "T", "stage_id": "nope"}, "stage_id"),
        ({"title": "T", "company_id": "nope"}, "company_id"),
        ({"title": "T", "contact_id": "nope"}, "contact_id"),
        ({"title": "T", "owner_id": "nope"}, "owner_id"),
    ]
    for body, field in refs:
        response = api.post("/api/deals/deals", as_=exec_user, json=body)
        assert response.status == 400 and field in response.json["error"], body
    deal = make_deal(db)
    assert api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"status": "closed"}).status == 400
    assert api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"stage_id": task_status.id}).status == 400
    assert api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"title": None}).status == 400


def test_deal_not_found_and_permissions(api, db, exec_user):
    assert api.get("/api/deals/deals/missing", as_=exec_user).status == 404
    assert api.put("/api/deals/deals/missing", as_=exec_user, json={"title": "x"}).status == 404
    assert api.delete("/api/deals/deals/missing", as_=exec_user).status == 404
    deal = make_deal(db)
    employee = make_user(db)
    assert api.post("/api/deals/deals", as_=employee, json={"title": "Mine"}).status == 201
    assert api.put(f"/api/deals/deals/{deal.id}", as_=employee, json={"title": "x"}).status == 200
    assert api.delete(f"/api/deals/deals/{deal.id}", as_=employee).status == 403
    viewer = make_user(db)
    grant(db, viewer, "deals", "view")
    assert api.get("/api/deals/deals", as_=viewer).status == 200
    assert api.post("/api/deals/deals", as_=viewer, json={"title": "x"}).status == 403
    nobody = make_user(db)
    grant(db, nobody, "deals", "none")
    assert api.get(f"/api/deals/deals/{deal.id}", as_=nobody).status == 403


def test_deal_list_filters_and_search(api, db, exec_user):
    acme = make_company(db, name="Acme")
    globex = make_company(db, name="Globex")
    owner = make_user(db)
    lead, won = config_item(db, "deal_stage", "lead"), config_item(db, "deal_stage", "won")
    a = make_deal(db, title="Website rebuild", company_id=acme.id, stage_id=lead.id, owner_id=owner.id)
    b = make_deal(db, title="SEO retainer", company_id=globex.id, stage_id=won.id, status="won")
    c = make_deal(db, title="App", company_id=acme.id, stage_id=won.id, status="lost", owner_id=owner.id)

    def ids(query):
        response = api.get(f"/api/deals/deals{query}", as_=exec_user)
        assert response.status == 200, response
        return {d["id"] for d in response.json["deals"]}

    assert ids("") == {a.id, b.id, c.id}
    assert ids(f"?stage_id={won.id}") == {b.id, c.id}
    assert ids("?status=won") == {b.id}
    assert ids(f"?owner_id={owner.id}") == {a.id, c.id}
    assert ids(f"?company_id={acme.id}") == {a.id, c.id}
    assert ids(f"?company_id={acme.id}&status=lost") == {c.id}
    assert ids("?search=REBUILD") == {a.id}
    assert ids("?search=globex") == {b.id}  # by company name too
    assert api.get("/api/deals/deals?status=maybe", as_=exec_user).status == 400


def test_deal_list_query_count_is_constant(api, db, exec_user, count_queries):
    stage = config_item(db, "deal_stage", "proposal")

    def add(n):
        for _ in range(n):
            company = make_company(db)
            contact = make_contact(db, company_id=company.id)
            make_deal(db, company_id=company.id, contact_id=contact.id, owner_id=make_user(db).id, stage_id=stage.id)

    add(5)
    with count_queries() as five:
        body = api.get("/api/deals/deals", as_=exec_user).json
    assert len(body["deals"]) == 5 and all(d["stage_label"] == "Proposal" and d["company_name"] for d in body["deals"])
    add(55)
    with count_queries() as sixty:
        assert len(api.get("/api/deals/deals", as_=exec_user).json["deals"]) == 60
    assert five.count == sixty.count


def test_deal_and_company_routes_resolve_side_by_side(api, db, exec_user):
    company = make_company(db, name="Side")
    deal = make_deal(db, title="By side", company_id=company.id)
    assert api.get(f"/api/deals/deals/{deal.id}", as_=exec_user).json["deal"]["title"] == "By side"
    assert api.get(f"/api/deals/companies/{company.id}", as_=exec_user).json["company"]["name"] == "Side"
    # an id of the other kind is 404 on each route
    assert api.get(f"/api/deals/deals/{company.id}", as_=exec_user).status == 404
    assert api.get(f"/api/deals/companies/{deal.id}", as_=exec_user).status == 404


def test_functions_for_other_areas(db, count_queries):
    from chalicelib.areas.deals import service

    a, b = make_company(db, name="A Co"), make_company(db, name="B Co")
    with count_queries() as counter:
        assert service.company_names(db, [a.id, b.id, "missing", None]) == {a.id: "A Co", b.id: "B Co"}
    assert counter.count == 1
    assert service.company_names(db, []) == {}
    deal = make_deal(db, title="Brief", status="won")
    assert service.deal_brief(db, deal.id) == {"id": deal.id, "title": "Brief", "status": "won"}
    assert service.deal_brief(db, "missing") is None


def test_deal_list_is_paged(api, db, exec_user):
    company = make_company(db)
    for _ in range(5):
        make_deal(db, company_id=company.id)
    whole = api.get(f"/api/deals/deals?company_id={company.id}", as_=exec_user).json
    assert (whole["total"], whole["limit"], whole["offset"], len(whole["deals"])) == (5, 500, 0, 5)
    body = api.get(f"/api/deals/deals?company_id={company.id}&limit=2&offset=3", as_=exec_user).json
    assert [d["id"] for d in body["deals"]] == [d["id"] for d in whole["deals"]][3:5]
    assert (body["total"], body["limit"], body["offset"]) == (5, 2, 3)
    for bad in ("limit=0", "limit=501", "offset=-1"):
        response = api.get(f"/api/deals/deals?{bad}", as_=exec_user)
        assert response.status == 400 and response.json["details"][0]["field"] == bad.split("=")[0]


def test_a_company_and_a_contact_hold_at_most_500_deals(api, db, exec_user):
    from chalicelib.areas.deals.models import Deal

    full, contact = make_company(db), make_contact(db)
    db.add_all([Deal(title=f"d{n}", status="open", currency="AUD", company_id=full.id, contact_id=contact.id)
                for n in range(500)])
    db.flush()
    response = api.post("/api/deals/deals", as_=exec_user, json={"title": "one too many", "company_id": full.id})
    assert response.status == 409 and "500 deals" in response.json["error"]
    response = api.post("/api/deals/deals", as_=exec_user, json={"title": "one too many", "contact_id": contact.id})
    assert response.status == 409 and "500 deals" in response.json["error"]
    elsewhere = make_deal(db, company_id=make_company(db).id)
    moved = api.put(f"/api/deals/deals/{elsewhere.id}", as_=exec_user, json={"company_id": full.id})
    assert moved.status == 409
    assert len(api.get(f"/api/deals/companies/{full.id}", as_=exec_user).json["deals"]) == 500


def test_reference_errors_name_their_field_in_details(api, db, exec_user):
    """decisions.md section 4: a validation error answers 400 with `details: [{ field, message }]`, also when the
    value names a missing company, contact, user or stage."""
    task_status = config_item(db, "task_status", "todo")
    contact = make_contact(db)
    cases = [("/api/deals/deals", {"title": "T", "stage_id": task_status.id}, "stage_id"),
             ("/api/deals/deals", {"title": "T", "company_id": "nope"}, "company_id"),
             ("/api/deals/deals", {"title": "T", "contact_id": "nope"}, "contact_id"),
             ("/api/deals/deals", {"title": "T", "owner_id": "nope"}, "owner_id"),
             ("/api/deals/companies", {"name": "X", "owner_id": "nope"}, "owner_id"),
             ("/api/deals/contacts", {"first_name": "A", "company_id": "nope"}, "company_id")]
    for path, body, field in cases:
        response = api.post(path, as_=exec_user, json=body)
        assert response.status == 400 and field in response.json["error"], (path, body, response)
        assert [d["field"] for d in response.json.get("details", [])] == [field], (path, body, response.json)
    moved = api.put(f"/api/deals/contacts/{contact.id}", as_=exec_user, json={"company_id": "nope"})
    assert moved.status == 400 and moved.json["details"][0]["field"] == "company_id", moved
