"""Session 32 (values in another letter case): a client's request naming its priority "High" is the priority "high"
(a list's values are unique ignoring case since session 32; it was a 400), and the portal's projects filter
`?status=Completed` lists the completed projects as the staff's filter does (it listed none)."""
from chalicelib.areas.tasks.models import Task
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import priority


def test_a_priority_in_another_case_is_the_priority(portal, db):
    mine = make_client(db)
    high = priority(db, "high")
    project = make_project(db, company_id=mine.id)
    answer = portal.post("/requests", mine, role="admin", json={"title": "Checkout broken", "priority": " High ",
                                                                 "projectId": project.id})
    assert answer.status == 201, answer.json
    assert db.get(Task, answer.json["taskId"]).priority_id == high.id
    assert portal.post("/requests", mine, role="admin", json={"title": "x", "projectId": project.id,
                                                                "priority": "highest"}).status == 400


def test_the_projects_status_filter_ignores_letter_case(portal, db):
    mine = make_client(db)
    make_project(db, company_id=mine.id, name="Old", status="completed")
    make_project(db, company_id=mine.id, name="Website")
    listed = portal.get("/projects?status=Completed", mine)
    assert listed.status == 200, listed.json
    assert [p["name"] for p in listed.json["projects"]] == ["Old"]


def test_the_projects_status_filter_reads_the_lists_label(portal, db):
    """As the staff's filter (projects `_status_values_named`): `?status=On hold` is the value `on_hold` (the review
    of session 32: the portal compared letter case only)."""
    mine = make_client(db)
    make_project(db, company_id=mine.id, name="Paused", status="on_hold")
    make_project(db, company_id=mine.id, name="Website")
    listed = portal.get("/projects?status=On hold", mine)
    assert listed.status == 200, listed.json
    assert [p["name"] for p in listed.json["projects"]] == ["Paused"]
