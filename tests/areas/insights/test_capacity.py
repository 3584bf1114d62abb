"""The capacity heatmap (document 1, project side effects): filled by the projects area when a project has a
company and a type, refreshed when its status, company or type changes, read at /api/insights/capacity-heatmap."""
from tests.areas.deals.factories import make_company
from tests.factories import config_item, make_user


def _cells(api, user):
    answer = api.get("/api/insights/capacity-heatmap", as_=user)
    assert answer.status == 200, answer
    return {(c["company_id"], c["project_type_id"]): (c["project_count"], c["active_project_count"])
            for c in answer.json["cells"]}


def test_cells_follow_projects(api, db, exec_user):
    acme, globex = make_company(db, name="Acme"), make_company(db, name="Globex")
    website, retainer = config_item(db, "project_type", "website"), config_item(db, "project_type", "retainer")
    assert _cells(api, exec_user) == {}

    def create(**body):
        answer = api.post("/api/projects", as_=exec_user, json={"name": "P", **body})
        assert answer.status == 201, answer
        return answer.json["project"]["id"]

    first = create(company_id=acme.id, type_id=website.id)
    create(company_id=acme.id, type_id=website.id, status="on_hold")
    create(company_id=acme.id)  # no type: no cell
    untyped = create(type_id=retainer.id)  # no company: no cell
    assert _cells(api, exec_user) == {(acme.id, website.id): (2, 2)}
    body = api.get("/api/insights/capacity-heatmap", as_=exec_user).json["cells"][0]
    assert body["company_name"] == "Acme" and body["project_type_label"] == website.label

    api.put(f"/api/projects/{first}", as_=exec_user, json={"status": "completed"})
    assert _cells(api, exec_user) == {(acme.id, website.id): (2, 1)}
    api.put(f"/api/projects/{first}", as_=exec_user, json={"company_id": globex.id})
    assert _cells(api, exec_user) == {(acme.id, website.id): (1, 1), (globex.id, website.id): (1, 0)}
    api.put(f"/api/projects/{untyped}", as_=exec_user, json={"company_id": globex.id})
    assert _cells(api, exec_user)[(globex.id, retainer.id)] == (1, 1)
    api.put(f"/api/projects/{first}", as_=exec_user, json={"type_id": None})
    assert (globex.id, website.id) not in _cells(api, exec_user)
    assert api.delete(f"/api/projects/{untyped}", as_=exec_user).status == 200
    assert (globex.id, retainer.id) not in _cells(api, exec_user)


def test_heatmap_access(api, db):
    assert api.get("/api/insights/capacity-heatmap", as_=make_user(db, access_level="manager")).status == 200
    assert api.get("/api/insights/capacity-heatmap", as_=make_user(db)).status == 403


def test_the_heatmap_answers_at_most_500_cells(api, db, exec_user):
    """decisions.md section 4: a list with no stated limit answers at most 500 rows; the cells are by company
    name then type label."""
    from chalicelib.areas.deals.models import Company
    from chalicelib.areas.insights.models import CapacityProject
    from chalicelib.areas.projects.models import Project
    from chalicelib.core.ids import new_id
    from chalicelib.core.locks import insert_rows

    website = config_item(db, "project_type", "website")
    companies = insert_rows(db, Company, [{"id": new_id(), "name": f"Client {n:03d}", "status": "client"}
                                          for n in range(501)])
    projects = insert_rows(db, Project, [{"id": new_id(), "name": f"P {n}", "status": "active",
                                          "company_id": company["id"], "type_id": website.id}
                                         for n, company in enumerate(companies)])
    insert_rows(db, CapacityProject, [{"project_id": project["id"], "company_id": project["company_id"],
                                       "project_type_id": website.id, "status": "active"} for project in projects])
    db.flush()
    cells = api.get("/api/insights/capacity-heatmap", as_=exec_user).json["cells"]
    assert len(cells) == 500
    assert [c["company_name"] for c in cells[:2]] == ["Client 000", "Client 001"]
    assert cells[0]["project_type_label"] == website.label and cells[0]["project_count"] == 1


def test_a_project_whose_type_or_company_was_deleted_leaves_the_heatmap(api, db, exec_user):
    """Document 1: the cell is filled when company_id and the project type are set. Deleting the type (the
    project's type_id becomes null) or the company leaves the project without them: it no longer counts (its
    cell stayed, with a null label or company name)."""
    acme, globex = make_company(db, name="Acme"), make_company(db, name="Globex")
    made = api.post("/api/config-lists/project_type/items", as_=exec_user, json={"label": "Pop-up", "value": "popup"})
    assert made.status == 201, made
    popup = made.json["item"]["id"]
    website = config_item(db, "project_type", "website")
    for company, type_id in ((acme, popup), (globex, website.id)):
        assert api.post("/api/projects", as_=exec_user,
                        json={"name": "P", "company_id": company.id, "type_id": type_id}).status == 201
    assert set(_cells(api, exec_user)) == {(acme.id, popup), (globex.id, website.id)}
    assert api.delete(f"/api/config-lists/project_type/items/{popup}", as_=exec_user).status == 200
    assert set(_cells(api, exec_user)) == {(globex.id, website.id)}
    assert api.delete(f"/api/deals/companies/{globex.id}", as_=exec_user).status == 200
    assert _cells(api, exec_user) == {}
