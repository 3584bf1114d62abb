"""Session 29 (tool-scope audit): the action centre and its items reach the records of three other areas. The
document (docs/decisions/action_items.md) says an item's `project_id` is "a project the caller can see" and its
`company_id`, `contact_id`, `deal_id` records that "deals holders see", and the centre's sprint is "a sprint the
caller can see through its project" (the sprints routes' tool is `projects`), its board "the tasks ... that the
caller can see". Only row scopes (or existence) were asked: a member whose `tasks`, `projects` or `deals`
permission is none (an override) was shown the sprint, its tasks' titles and its client's name in the centre, saw
contacts' names on items, and named any project, company, contact or deal on a new item. Now each record is seen
with its tool at view as well (400 on a reference, as a missing record; null names; no sprint, no board tasks)."""
from datetime import date

import pytest

from tests.areas.action_items.factories import make_action_item
from tests.areas.action_items.test_centre import sprint
from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import grant


@pytest.fixture
def board(db, employee):
    company = make_company(db, name="Acme")
    project = make_project(db, name="Site", company_id=company.id, members=[employee])
    current = sprint(db, project, "S2", date(2026, 1, 19), status="active")
    make_task(db, title="Planned secret", sprint_id=current.id, assignee_id=employee.id, resource_type="project",
              resource_id=project.id)
    make_task(db, title="Backlog secret", assignee_id=employee.id, resource_type="project", resource_id=project.id)
    return project, current


def test_the_board_shows_no_task_to_a_caller_who_may_not_view_tasks(api, db, employee, board):
    _project, current = board
    grant(db, employee, "tasks", "none")  # an override: this employee may not view tasks
    centre = api.get("/api/action-items/centre", as_=employee)
    assert centre.status == 200, centre
    assert centre.json["current_sprint"]["id"] == current.id
    assert centre.json["sprint_tasks"] == [] and centre.json["backlog_tasks"] == []
    assert "secret" not in str(centre.json)
    grant(db, employee, "tasks", "view")
    assert len(api.get("/api/action-items/centre", as_=employee).json["sprint_tasks"]) == 1


def test_the_board_names_no_company_to_a_caller_who_may_not_view_deals(api, db, employee, board):
    grant(db, employee, "deals", "none")
    body = api.get("/api/action-items/centre", as_=employee).json
    assert body["current_sprint"]["company_name"] is None and body["current_sprint"]["project_name"] == "Site"
    assert [t["company_name"] for t in body["sprint_tasks"] + body["backlog_tasks"]] == [None, None]
    assert "Acme" not in str(body)


def test_the_centre_shows_no_sprint_to_a_caller_who_may_not_view_projects(api, db, employee, board):
    _project, current = board
    grant(db, employee, "projects", "none")
    body = api.get("/api/action-items/centre", as_=employee)
    assert body.status == 200, body
    assert body.json["current_sprint"] is None and body.json["sprint_tasks"] == []
    assert "Site" not in str(body.json) and "S2" not in str(body.json)
    assert api.get(f"/api/action-items/centre?sprint_id={current.id}", as_=employee).status == 404
    grant(db, employee, "projects", "view")
    assert api.get(f"/api/action-items/centre?sprint_id={current.id}", as_=employee).json["current_sprint"]["id"] == \
        current.id


def test_items_name_no_contact_to_a_caller_who_may_not_view_deals(api, db, employee):
    contact = make_contact(db, first_name="Clara", last_name="Secret")
    item = make_action_item(db, assigned_to=employee.id, contact_id=contact.id)
    grant(db, employee, "deals", "none")
    (listed,) = api.get("/api/action-items", as_=employee).json["action_items"]
    assert listed["contact_id"] == contact.id
    assert listed["contact_first_name"] is None and listed["contact_last_name"] is None
    renamed = api.patch(f"/api/action-items/{item.id}", as_=employee, json={"title": "Call"})
    assert renamed.status == 200, renamed
    assert renamed.json["action_item"]["contact_first_name"] is None
    grant(db, employee, "deals", "view")
    (listed,) = api.get("/api/action-items", as_=employee).json["action_items"]
    assert listed["contact_first_name"] == "Clara"


@pytest.mark.parametrize("tool, field, build", [
    ("projects", "project_id", make_project), ("deals", "company_id", make_company),
    ("deals", "contact_id", make_contact), ("deals", "deal_id", make_deal)])
def test_an_item_cannot_name_a_record_of_a_tool_the_caller_may_not_view(api, db, tool, field, build):
    from tests.factories import make_user

    head = make_user(db, access_level="head")
    record = build(db)
    grant(db, head, tool, "none")  # an override: this head may not view the tool (a head sees every project)
    refused = api.post("/api/action-items", as_=head, json={"title": "Call", field: record.id})
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == [field]
    grant(db, head, tool, "view")
    assert api.post("/api/action-items", as_=head, json={"title": "Call", field: record.id}).status == 201
