"""Session 29 (another area's record, seen with that area's permission): docs/decisions/invoices.md says "a
`budget_id` the caller cannot see is a 400". The budget was checked by its row scope alone: a head whose `budgets`
permission is none (an override; a head's scope holds every budget) invoiced any budget, learning which ids exist,
though every budget route answers them 403. The detail's `project_name` (the budget's project) was told likewise to a
head whose `projects` permission is none. Now the budget needs `budgets:view` and the project's name `projects:view`
as well as their row scope."""
from tests.areas.budgets.factories import make_budget
from tests.areas.invoices.factories import make_invoice
from tests.areas.projects.factories import make_project
from tests.factories import grant, make_user, refused_fields


def test_an_invoice_cannot_name_a_budget_of_a_caller_who_may_not_view_budgets(api, db):
    head = make_user(db, access_level="head")
    budget = make_budget(db, name="Secret build")
    grant(db, head, "budgets", "none")  # an override: this head may not view budgets
    assert api.get(f"/api/budgets/{budget.id}", as_=head).status == 403
    assert refused_fields(api.post("/api/invoices", as_=head, json={"budget_id": budget.id})) == ["budget_id"]
    invoice = make_invoice(db)
    assert refused_fields(api.put(f"/api/invoices/{invoice.id}", as_=head, json={"budget_id": budget.id})) == [
        "budget_id"]
    # with budgets:view the same head invoices it
    grant(db, head, "budgets", "view")
    made = api.post("/api/invoices", as_=head, json={"budget_id": budget.id})
    assert made.status == 201, made
    assert made.json["invoice"]["budget_name"] == "Secret build"


def test_an_invoice_does_not_name_its_project_to_a_caller_who_may_not_view_projects(api, db, exec_user):
    head = make_user(db, access_level="head")
    project = make_project(db, name="Secret rebrand")
    invoice = make_invoice(db, budget_id=make_budget(db, resource_id=project.id).id)
    grant(db, head, "projects", "none")
    assert api.get(f"/api/projects/{project.id}", as_=head).status == 403
    answer = api.get(f"/api/invoices/{invoice.id}", as_=head)
    assert answer.status == 200, answer
    assert answer.json["invoice"]["project_id"] == project.id and answer.json["invoice"]["project_name"] is None
    assert "Secret rebrand" not in str(answer.json)
    assert api.get(f"/api/invoices/{invoice.id}", as_=exec_user).json["invoice"]["project_name"] == "Secret rebrand"


def test_an_invoice_cannot_name_a_company_or_contact_of_a_caller_who_may_not_view_deals(api, db):
    """Companies and contacts are seen with `deals:view` (decisions.md section 5)."""
    from tests.areas.deals.factories import make_company, make_contact

    head = make_user(db, access_level="head")
    company, contact = make_company(db, name="Acme"), make_contact(db)
    grant(db, head, "deals", "none")
    body = {"company_id": company.id, "contact_id": contact.id}
    assert refused_fields(api.post("/api/invoices", as_=head, json=body)) == ["company_id", "contact_id"]
    invoice = make_invoice(db)
    assert refused_fields(api.put(f"/api/invoices/{invoice.id}", as_=head, json={"company_id": company.id})) == [
        "company_id"]
    grant(db, head, "deals", "view")
    made = api.post("/api/invoices", as_=head, json=body)
    assert made.status == 201, made
    assert made.json["invoice"]["company_name"] == "Acme"


def test_an_invoice_does_not_name_its_budget_to_a_caller_who_may_not_view_budgets(api, db, exec_user):
    head = make_user(db, access_level="head")
    budget = make_budget(db, name="Secret build")
    invoice = make_invoice(db, budget_id=budget.id)
    grant(db, head, "budgets", "none")
    detail = api.get(f"/api/invoices/{invoice.id}", as_=head)
    assert detail.status == 200, detail
    assert detail.json["invoice"]["budget_id"] == budget.id and detail.json["invoice"]["budget_name"] is None
    listed = api.get("/api/invoices", as_=head)
    assert listed.status == 200, listed
    assert [(i["id"], i["budget_name"]) for i in listed.json["invoices"]] == [(invoice.id, None)]
    edited = api.put(f"/api/invoices/{invoice.id}", as_=head, json={"notes": "n"})
    assert edited.status == 200, edited
    assert edited.json["invoice"]["budget_name"] is None
    assert "Secret build" not in str(detail.json) + str(listed.json) + str(edited.json)
    assert api.get(f"/api/invoices/{invoice.id}", as_=exec_user).json["invoice"]["budget_name"] == "Secret build"
