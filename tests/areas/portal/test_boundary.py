"""The portal's trust boundary (issue 19 item 1): the service token, the company header, client check, roles
and group ids."""
import pytest

from tests.areas.deals.factories import make_company
from tests.areas.portal.conftest import TOKEN, make_client
from tests.areas.projects.factories import make_project


def test_token_unset_is_503(portal, db, set_env):
    company = make_client(db)
    set_env(PORTAL_SERVICE_TOKEN=None)
    answer = portal.get("/projects", company)
    assert answer.status == 503 and "error" in answer.json


@pytest.mark.parametrize("token", [None, "", "wrong", TOKEN + "x", TOKEN[:-1]])
def test_missing_or_wrong_token_is_401(portal, db, token):
    company = make_client(db)
    assert portal.get("/projects", company, token=token).status == 401


def test_other_schemes_are_401(portal, db):
    company = make_client(db)
    answer = portal.get("/projects", company, token=None, headers={"Authorization": f"Basic {TOKEN}"})
    assert answer.status == 401


def test_company_header_required_and_must_be_a_client(portal, db):
    assert portal.get("/projects").status == 400
    prospect = make_company(db, status="prospect")
    assert portal.get("/projects", prospect).status == 404
    assert portal.get("/projects", "no-such-company").status == 404
    assert portal.get("/projects", "x" * 300).status == 404
    assert portal.get("/projects", make_client(db)).status == 200


def test_a_former_client_with_a_profile_is_refused(portal, db):
    company = make_client(db)
    company.status = "prospect"
    db.flush()
    assert portal.get("/projects", company).status == 404


def test_token_is_checked_before_the_body(portal, db):
    company = make_client(db)
    answer = portal.post("/requests", company, role="admin", token="wrong", json={"title": ""})
    assert answer.status == 401


def test_roles(portal, db):
    company = make_client(db)
    assert portal.get("/projects", company, role="nobody").status == 400
    assert portal.get("/projects", company, role=None).status == 200  # a read defaults to viewer
    project = make_project(db, company_id=company.id)
    body = {"title": "Please fix", "projectId": project.id}
    assert portal.post("/requests", company, role="viewer", json=body).status == 403
    assert portal.post("/requests", company, role=None, json=body).status == 403
    assert portal.post("/requests", company, role="collaborator", json=body).status == 201
    assert portal.post("/requests", company, role="admin", json=body).status == 201


def test_group_ids_are_honoured_only_inside_the_client_group(portal, db):
    mine = make_client(db, group="Acme group")
    sister = make_client(db, group="Acme group")
    stranger = make_client(db, group="Other group")
    ungrouped = make_client(db)
    prospect = make_company(db, status="prospect")
    projects = {c.id: make_project(db, company_id=c.id, name=f"P {c.name}").id
                for c in (mine, sister, stranger, ungrouped, prospect)}
    answer = portal.get("/dashboard", mine, group=[sister, stranger, ungrouped, prospect, "junk"])
    assert answer.status == 200, answer
    seen = {p["id"] for p in answer.json["projects"]}
    assert seen == {projects[mine.id], projects[sister.id]}
    # a company without a group honours no group id
    alone = portal.get("/dashboard", ungrouped, group=[mine, sister]).json
    assert {p["id"] for p in alone["projects"]} == {projects[ungrouped.id]}
    # a route that is not group-aware ignores the header
    listed = portal.get("/projects", mine, group=[sister]).json
    assert [p["id"] for p in listed["projects"]] == [projects[mine.id]]


def test_group_aware_lists_read_the_honoured_group_only(portal, db):
    from chalicelib.areas.notes.models import Note
    from tests.areas.budgets.factories import make_budget
    from tests.areas.pages.factories import make_page
    from tests.areas.projects.factories import add_member
    from tests.factories import make_user

    mine, sister, stranger = (make_client(db, group="G"), make_client(db, group="G"), make_client(db, group="H"))
    names = {}
    for company in (mine, sister, stranger):
        project = make_project(db, company_id=company.id)
        make_budget(db, resource_id=project.id, name=f"B {company.id}", status="pending_approval")
        make_page(db, title=f"P {company.id}", entity_type="company", entity_id=company.id, is_published=True)
        db.add(Note(resource_type="project", resource_id=project.id, content=f"N {company.id}", visibility=["client"],
                    mentions=[]))
        add_member(db, project, make_user(db, name=f"M {company.id}"))
        names[company.id] = company.id
    db.flush()
    group = [sister, stranger]
    expected = {mine.id, sister.id}
    for path, key, field in (("/budgets", "budgets", "name"), ("/pages", "pages", "title"),
                             ("/notes", "notes", "content"), ("/team", "team", "name")):
        listed = portal.get(path, mine, group=group).json[key]
        assert {item[field].split(" ", 1)[1] for item in listed} == expected, path
        alone = portal.get(path, mine).json[key]
        assert {item[field].split(" ", 1)[1] for item in alone} == {mine.id}, path
    # detail routes read the company alone, not its group
    sister_budget = portal.get("/budgets", sister).json["budgets"][0]["id"]
    assert portal.get(f"/budgets/{sister_budget}", mine, group=group).status == 404


def _portal_routes(app):
    import re

    return sorted((method, re.sub(r"\{[^}]+\}", "00000000-0000-0000-0000-000000000000", path[len("/api/portal"):]))
                  for path, methods in app.routes.items() if path.startswith("/api/portal/")
                  for method in methods)


def test_every_portal_route_checks_the_token_the_company_and_the_write_role(portal, db, app, set_env):
    """Document 3, authentication rule 5 and "Client portal": every route is called with the service token and
    scoped to the client company of X-Portal-Company-Id; writes need collaborator or admin (the notification
    routes touch the caller's own records and the results question only reads: docs/decisions/portal.md)."""
    routes = _portal_routes(app)
    assert len(routes) == 37, routes  # the 37 rows of document 3's table
    client, prospect = make_client(db), make_company(db, status="prospect")
    readers = {("POST", "/notifications/00000000-0000-0000-0000-000000000000/read"),
               ("POST", "/notifications/read-all"), ("PUT", "/notifications/preferences"), ("POST", "/results/ask")}
    for method, path in routes:
        assert portal.request(method, path, client, token=None).status == 401, (method, path)
        assert portal.request(method, path, client, token="wrong").status == 401, (method, path)
        assert portal.request(method, path, None).status == 400, (method, path)
        assert portal.request(method, path, prospect).status == 404, (method, path)
        if method != "GET" and (method, path) not in readers:
            assert portal.request(method, path, client, role="viewer").status == 403, (method, path)
    set_env(PORTAL_SERVICE_TOKEN=None)  # decisions.md section 1: unset, the portal routes answer 503
    assert [(m, p) for m, p in routes if portal.request(m, p, client).status != 503] == []


def test_the_dashboard_reads_the_group_and_the_other_routes_the_company_alone(portal, db):
    """Document 3: the dashboard is group-aware (its projects, financial totals, activity and milestones read the
    honoured group companies); /projects, /history and /questionnaire are not (the header is ignored)."""
    from datetime import date
    from decimal import Decimal

    from chalicelib.areas.projects.models import ProjectGoal
    from chalicelib.core import history as core_history
    from tests.areas.invoices.factories import make_invoice

    mine, sister, stranger = make_client(db, group="G"), make_client(db, group="G"), make_client(db, group="H")
    projects = {}
    for company, total in ((mine, "100"), (sister, "20"), (stranger, "3")):
        project = make_project(db, company_id=company.id, name=f"P {company.id}")
        projects[company.id] = project.id
        db.add(ProjectGoal(project_id=project.id, title=f"G {company.id}", due_date=date(2030, 1, 1)))
        make_invoice(db, status="sent", company_id=company.id, total=Decimal(total), subtotal=Decimal(total),
                     tax=Decimal("0"), amount_paid=Decimal("0"), amount_due=Decimal(total))
        core_history.record(db, entity_type="project", entity_id=project.id, action=f"A {company.id}", actor_id=None)
    db.flush()
    group = [sister, stranger]
    body = portal.get("/dashboard", mine, group=group).json
    assert {p["id"] for p in body["projects"]} == {projects[mine.id], projects[sister.id]}
    assert body["financial"]["total_invoiced"] == 120.0
    assert {m["title"] for m in body["milestones"]} == {f"G {mine.id}", f"G {sister.id}"}
    assert {a["action"] for a in body["recentActivity"]} == {f"A {mine.id}", f"A {sister.id}"}
    assert portal.get("/dashboard", mine).json["financial"]["total_invoiced"] == 100.0
    assert [p["id"] for p in portal.get("/projects", mine, group=group).json["projects"]] == [projects[mine.id]]
    assert [h["action"] for h in portal.get("/history", mine, group=group).json["history"]] == [f"A {mine.id}"]
    assert portal.get(f"/projects/{projects[sister.id]}", mine, group=group).status == 404
    assert portal.get(f"/projects/{projects[sister.id]}/tasks", mine, group=group).status == 404
