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
        make_budget(db, resource_id=project.id, name=f"B {company.id}")
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
