"""Session 26 (audit "one record, several views"): the portal's project detail named former staff among the project's
members while the portal's team, and the project's owner and delivery manager names, leave them out."""
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def test_portal_project_members_leave_out_former_staff_as_the_team_does(portal, api, db):
    former, current = make_user(db, name="Former Member"), make_user(db, name="Current Member")
    company = make_client(db)
    project = make_project(db, company_id=company.id, members=(former, current))
    former.is_active = False
    db.flush()
    team = [m["name"] for m in portal.get("/team", company).json["team"]]
    assert team == ["Current Member"]
    members = [m["name"] for m in portal.get(f"/projects/{project.id}", company).json["members"]]
    assert members == team
    # staff still see every member, a former one too (the project's record of who worked on it)
    executive = make_user(db, access_level="executive")
    staff = {m["user_id"] for m in api.get(f"/api/projects/{project.id}/members", as_=executive).json["members"]}
    assert staff == {former.id, current.id}
