"""Session 29 (another area's record, seen with that area's permission): docs/decisions/budgets.md says a budget's
`resource_id` names "a project the caller can see", a line item's `task_id` "a task the caller can see", and that the
detail answers `task_title` "only for a task the caller may read". The project and the task were checked by their row
scope alone: a head whose `projects` or `tasks` permission is none (an override; a head's scope holds every row)
made a budget of any project, tied a line item to any task and read task titles, though every project and task
route answers them 403. A deal already needed `deals:view`; a project and a task now need their tool at view too."""
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.areas.timesheets.factories import make_entry
from tests.factories import grant, make_user, refused_fields

SECRET = "Confidential: the merger plan"


def test_a_budget_cannot_name_a_project_of_a_caller_who_may_not_view_projects(api, db):
    head = make_user(db, access_level="head")
    project, other = make_project(db), make_project(db)
    grant(db, head, "projects", "none")  # an override: this head may not view projects
    assert api.get(f"/api/projects/{project.id}", as_=head).status == 403
    body = {"name": "Build", "resource_type": "project", "resource_id": project.id}
    assert refused_fields(api.post("/api/budgets", as_=head, json=body)) == ["resource_id"]
    budget = make_budget(db, resource_id=other.id)
    assert refused_fields(api.put(f"/api/budgets/{budget.id}", as_=head, json={"resource_id": project.id})) == [
        "resource_id"]
    # with projects:view the same head makes it
    grant(db, head, "projects", "view")
    assert api.post("/api/budgets", as_=head, json=body).status == 201


def test_a_line_item_cannot_name_a_task_of_a_caller_who_may_not_view_tasks(api, db):
    head = make_user(db, access_level="head")
    budget, task = make_budget(db), make_task(db, title=SECRET)
    grant(db, head, "tasks", "none")  # an override: this head may not view tasks
    assert api.get(f"/api/tasks/{task.id}", as_=head).status == 403
    path = f"/api/budgets/{budget.id}/line-items"
    assert refused_fields(api.post(path, as_=head, json={"description": "Delivery", "task_id": task.id})) == ["task_id"]
    item = make_line_item(db, budget, description="Copy")
    assert refused_fields(api.put(f"{path}/{item.id}", as_=head, json={"task_id": task.id})) == ["task_id"]
    grant(db, head, "tasks", "view")
    made = api.post(path, as_=head, json={"description": "Delivery", "task_id": task.id})
    assert made.status == 201, made
    assert made.json["item"]["task_title"] == SECRET


def test_task_titles_are_not_told_to_a_caller_who_may_not_view_tasks(api, db, exec_user):
    head = make_user(db, access_level="head")
    project = make_project(db)
    task = make_task(db, title=SECRET, resource_type="project", resource_id=project.id)
    budget = make_budget(db, resource_id=project.id)
    item = make_line_item(db, budget, task_id=task.id, description="Delivery")
    make_entry(db, exec_user, task_id=task.id, budget_id=budget.id, project_id=project.id, status="approved")
    grant(db, head, "tasks", "none")
    answer = api.get(f"/api/budgets/{budget.id}", as_=head)
    assert answer.status == 200, answer
    assert [(i["task_id"], i["task_title"]) for i in answer.json["line_items"]] == [(task.id, None)]
    assert [(e["task_id"], e["task_title"]) for e in answer.json["time_entries"]] == [(task.id, None)]
    assert SECRET not in str(answer.json)
    edited = api.put(f"/api/budgets/{budget.id}/line-items/{item.id}", as_=head, json={"description": "Delivery 2"})
    assert edited.status == 200, edited
    assert edited.json["item"]["task_title"] is None
    # the executive, and the head given tasks:view back, read the title
    grant(db, head, "tasks", "view")
    for reader in (exec_user, head):
        body = api.get(f"/api/budgets/{budget.id}", as_=reader).json
        assert [i["task_title"] for i in body["line_items"]] == [SECRET]
        assert [e["task_title"] for e in body["time_entries"]] == [SECRET]


def test_a_budget_cannot_name_a_company_of_a_caller_who_may_not_view_deals(api, db):
    """Companies are seen with `deals:view` (decisions.md section 5), as a deal resource already was."""
    from tests.areas.deals.factories import make_company

    head = make_user(db, access_level="head")
    project, company = make_project(db), make_company(db, name="Acme")
    grant(db, head, "deals", "none")
    body = {"name": "Build", "resource_type": "project", "resource_id": project.id, "company_id": company.id}
    assert refused_fields(api.post("/api/budgets", as_=head, json=body)) == ["company_id"]
    budget = make_budget(db, resource_id=project.id)
    assert refused_fields(api.put(f"/api/budgets/{budget.id}", as_=head, json={"company_id": company.id})) == [
        "company_id"]
    grant(db, head, "deals", "view")
    made = api.post("/api/budgets", as_=head, json=body)
    assert made.status == 201, made
    assert made.json["budget"]["company_name"] == "Acme"
