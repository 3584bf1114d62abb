"""Session 32 (values in another letter case): a client's request naming its priority "High" is the priority "high"
(a list's values are unique ignoring case since session 32; it was a 400), and the portal's projects filter
`?status=Completed` lists the completed projects as the staff's filter does (it listed none)."""
import pytest

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


@pytest.mark.parametrize("stored, asked", [("completed", "Completed"), ("on_hold", "On hold")])
def test_the_projects_status_filter_reads_a_status_as_the_staffs_filter(portal, db, stored, asked):
    """Letter case aside (`?status=Completed` listed none), and by the `project_status` item's label as the staff's
    filter reads it (projects `_status_values_named`; the review of session 32: `?status=On hold` found nothing)."""
    mine = make_client(db)
    make_project(db, company_id=mine.id, name="Found", status=stored)
    make_project(db, company_id=mine.id, name="Website")
    listed = portal.get(f"/projects?status={asked}", mine)
    assert listed.status == 200, listed.json
    assert [p["name"] for p in listed.json["projects"]] == ["Found"]
