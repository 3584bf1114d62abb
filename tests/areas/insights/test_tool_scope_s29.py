"""Session 29 (another area's record, seen with that area's permission): a company is a record of the deals area,
"seen" by holders of `deals:view` (decisions.md section 5: "every holder of deals:view sees them all"; session 28 did
the same for the names a meeting's match shows). The capacity heatmap told every holder of insights:view the names
of the companies, though every company route answers 403 to a head whose `deals` permission is none (an override).
The cell stays (the figures are organisation-wide); its `company_name` is null to such a caller."""
from tests.areas.deals.factories import make_company
from tests.factories import config_item, grant, make_user


def test_the_heatmap_names_no_company_to_a_caller_who_may_not_view_deals(api, db, exec_user):
    acme = make_company(db, name="Acme Secret Client")
    website = config_item(db, "project_type", "website")
    made = api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": acme.id, "type_id": website.id})
    assert made.status == 201, made
    head = make_user(db, access_level="head")
    grant(db, head, "deals", "none")  # an override: this head may not view companies
    assert api.get(f"/api/deals/companies/{acme.id}", as_=head).status == 403
    answer = api.get("/api/insights/capacity-heatmap", as_=head)
    assert answer.status == 200, answer
    assert [(c["company_id"], c["company_name"], c["project_count"]) for c in answer.json["cells"]] == \
        [(acme.id, None, 1)]
    assert "Acme Secret Client" not in str(answer.json)
    # with deals:view the same head is told the name, as the executive is
    grant(db, head, "deals", "view")
    assert api.get("/api/insights/capacity-heatmap", as_=head).json["cells"][0]["company_name"] == "Acme Secret Client"
    assert api.get("/api/insights/capacity-heatmap", as_=exec_user).json["cells"][0]["company_name"] == \
        "Acme Secret Client"
