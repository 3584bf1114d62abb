"""The action centre at GET /api/action-items/centre."""
from datetime import date

from chalicelib.areas.sprints.models import Sprint
from tests.areas.action_items.factories import make_action_item
from tests.areas.deals.factories import make_company
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import config_item, grant, make_user


def sprint(db, project, name, start, status="closed"):
    made = Sprint(project_id=project.id, name=name, start_date=start, status=status)
    db.add(made)
    db.flush()
    return made


def test_centre_payload(api, db, employee):
    company = make_company(db, name="Acme")
    project = make_project(db, name="Site", company_id=company.id, members=[employee])
    other_project = make_project(db, owner_id=employee.id)
    first = sprint(db, project, "S1", date(2026, 1, 5))
    current = sprint(db, project, "S2", date(2026, 1, 19), status="active")
    following = sprint(db, project, "S3", date(2026, 2, 2), status="planned")
    older_active = sprint(db, other_project, "Old", date(2025, 12, 1), status="active")
    sprint(db, make_project(db), "Not mine", date(2026, 3, 1), status="active")
    status, done = config_item(db, "task_status", "todo"), config_item(db, "task_status", "done")
    kind = config_item(db, "task_type", "task")
    planned = make_task(db, title="Planned", sprint_id=current.id, assignee_id=employee.id, status_id=status.id,
                        type_id=kind.id, resource_type="project", resource_id=project.id)
    backlog = make_task(db, title="Backlog", assignee_id=employee.id, resource_type="project", resource_id=project.id)
    make_task(db, title="Finished", assignee_id=employee.id, resource_type="project", resource_id=project.id,
              status_id=done.id)
    make_task(db, title="Hidden", sprint_id=current.id)  # not visible to the employee
    item = make_action_item(db, assigned_to=employee.id)

    centre = api.get("/api/action-items/centre", as_=employee)
    assert centre.status == 200, centre
    body = centre.json
    assert [i["id"] for i in body["action_items"]] == [item.id]
    assert body["counts"]["total"] == 1 and body["preferences"] == [] and body["show_work_board"] is True
    assert body["current_sprint"] == {"id": current.id, "name": "S2", "start_date": "2026-01-19", "end_date": None,
                                      "status": "active", "project_id": project.id, "project_name": "Site",
                                      "company_name": "Acme"}
    assert body["sprint_adjacent"] == {"previous": {"id": first.id, "name": "S1"},
                                       "next": {"id": following.id, "name": "S3"}}
    (task,) = body["sprint_tasks"]
    assert task["id"] == planned.id and task["status_label"] == status.label and task["status_color"] == status.color
    assert task["type_label"] == kind.label and task["type_color"] == kind.color
    assert task["assignee_name"] == employee.name
    assert (task["project_name"], task["company_name"]) == ("Site", "Acme")
    assert [t["id"] for t in body["backlog_tasks"]] == [backlog.id]

    chosen = api.get(f"/api/action-items/centre?sprint_id={older_active.id}", as_=employee).json
    assert chosen["current_sprint"]["id"] == older_active.id and chosen["sprint_adjacent"] == {"previous": None,
                                                                                             "next": None}
    hidden = sprint(db, make_project(db), "Hidden", date(2026, 1, 1))
    assert api.get(f"/api/action-items/centre?sprint_id={hidden.id}", as_=employee).status == 404

    api.put("/api/action-items/preferences", as_=employee,
            json={"preferences": [{"source_module": "manual", "show_work_board": False}]})
    assert api.get("/api/action-items/centre", as_=employee).json["show_work_board"] is False


def test_centre_without_sprint(api, db):
    loner = make_user(db, access_level="employee")
    body = api.get("/api/action-items/centre", as_=loner).json
    assert body["current_sprint"] is None and body["sprint_tasks"] == [] and body["backlog_tasks"] == []
    assert body["sprint_adjacent"] == {"previous": None, "next": None}


def test_centre_costs_constant_statements(api, db, exec_user, count_queries):
    company = make_company(db)
    project = make_project(db, company_id=company.id, owner_id=exec_user.id)
    current = sprint(db, project, "Now", date(2026, 1, 19), status="active")
    sprint(db, project, "Before", date(2026, 1, 5))
    kind = config_item(db, "task_type", "task")

    def cost(n):
        for i in range(n):
            user = make_user(db)
            make_action_item(db, assigned_to=user.id)
            make_task(db, sprint_id=current.id, assignee_id=user.id, type_id=kind.id, resource_type="project",
                      resource_id=project.id)
            make_task(db, assignee_id=user.id, resource_type="project", resource_id=project.id)
        with count_queries() as counter:
            answer = api.get("/api/action-items/centre", as_=exec_user)
        assert answer.status == 200, answer
        return counter.count, len(answer.json["sprint_tasks"])

    for _ in range(50):  # the centre's first page of items (50) is full in both, so both count its total
        make_action_item(db, assigned_to=exec_user.id)
    few, few_tasks = cost(5)
    many, many_tasks = cost(95)
    assert (few_tasks, many_tasks) == (5, 100)
    assert few == many


def test_sprint_tasks_not_linked_to_a_project_carry_the_sprints_project(api, db, employee):
    """Document 1, Action items: "Sprint tasks carry ... project and company names"; a task planned into the
    sprint without a project of its own is a task of the sprint's project."""
    company = make_company(db, name="Globex")
    project = make_project(db, name="Portal", company_id=company.id, members=[employee])
    current = sprint(db, project, "Now", date(2026, 1, 19), status="active")
    other = make_project(db, name="Elsewhere", members=[employee])  # a project the employee sees (names are scoped)
    unlinked = make_task(db, title="Unlinked", sprint_id=current.id, assignee_id=employee.id)
    linked = make_task(db, title="Linked", sprint_id=current.id, assignee_id=employee.id, resource_type="project",
                       resource_id=other.id)
    body = api.get("/api/action-items/centre", as_=employee).json
    board = {task["id"]: (task["project_id"], task["project_name"], task["company_name"])
             for task in body["sprint_tasks"]}
    assert board == {unlinked.id: (project.id, "Portal", "Globex"), linked.id: (other.id, "Elsewhere", None)}


def test_the_work_board_names_no_project_the_caller_cannot_see(api, db):
    """A task of project Q planned into a sprint of project P (by someone who sees both) and visible to a member of
    P only: it keeps its project_id, with no project or company name (audit 7; docs/decisions/action_items.md)."""
    lead = make_user(db, access_level="head")  # plans across projects
    worker = make_user(db)
    grant(db, worker, "action-centre", "view")
    visible = make_project(db, name="Website refresh", company_id=make_company(db, name="Acme").id, members=[worker])
    hidden = make_project(db, name="Project Nightingale (acquisition)", owner_id=lead.id,
                          company_id=make_company(db, name="Target Pty").id)
    current = sprint(db, visible, "Sprint 1", date.today(), status="active")
    mine = make_task(db, title="Your task", assignee_id=worker.id, created_by=lead.id, resource_type="project",
                     resource_id=hidden.id)
    unlinked = make_task(db, title="Loose end", assignee_id=worker.id, created_by=lead.id)
    # planning a task of one project into another project's sprint is accepted (tasks area: any visible sprint)
    for task in (mine, unlinked):
        assert api.put(f"/api/tasks/{task.id}", as_=lead, json={"sprint_id": current.id}).status == 200
    assert api.get(f"/api/projects/{hidden.id}", as_=worker).status in (403, 404)

    body = api.get(f"/api/action-items/centre?sprint_id={current.id}", as_=worker).json
    board = {task["id"]: (task["project_id"], task["project_name"], task["company_name"])
             for task in body["sprint_tasks"]}
    assert board == {mine.id: (hidden.id, None, None), unlinked.id: (visible.id, "Website refresh", "Acme")}
    assert (body["current_sprint"]["project_name"], body["current_sprint"]["company_name"]) == ("Website refresh",
                                                                                                "Acme")
    assert "Nightingale" not in str(body) and "Target Pty" not in str(body)
    # the head, who sees every project, reads both names
    board = {task["id"]: (task["project_name"], task["company_name"])
             for task in api.get(f"/api/action-items/centre?sprint_id={current.id}", as_=lead).json["sprint_tasks"]}
    assert board[mine.id] == ("Project Nightingale (acquisition)", "Target Pty")


def test_the_centre_documents_its_404(api):
    """A `sprint_id` the caller cannot see answers 404 (docs/decisions/action_items.md): the OpenAPI document
    says so."""
    responses = api.get("/api/openapi.json").json["paths"]["/api/action-items/centre"]["get"]["responses"]
    assert "404" in responses
