"""A portal project record names no deactivated owner or delivery manager (session 25): the portal's team already
leaves former staff out (session 22), while the project list still named them to the client."""
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def test_portal_project_records_do_not_name_a_deactivated_owner(portal, db):
    former, current = make_user(db, name="Former Owner"), make_user(db, name="Current Manager")
    company = make_client(db)
    make_project(db, company_id=company.id, owner_id=former.id, delivery_manager_id=current.id)
    former.is_active = False
    db.flush()
    assert [lead["name"] for lead in portal.get("/team", company).json["leads"]] == ["Current Manager"]
    projects = portal.get("/projects", company).json["projects"]
    assert [(p["owner_name"], p["delivery_manager_name"]) for p in projects] == [(None, "Current Manager")]
    detail = portal.get(f"/projects/{projects[0]['id']}", company).json["project"]
    assert (detail["owner_name"], detail["delivery_manager_name"]) == (None, "Current Manager")
