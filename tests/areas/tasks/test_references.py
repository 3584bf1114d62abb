"""References of tasks to other records (the deletes, archives and references audit): a deactivated user
is no assignee or reporter, and a deleted project's, deal's or company's tasks stop naming it."""
from tests.areas.budgets.factories import make_budget
from tests.areas.deals.factories import make_company, make_deal
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def test_a_deactivated_user_cannot_be_given_a_task(api, db, exec_user):
    gone = make_user(db, is_active=False)
    response = api.post("/api/tasks", json={"title": "Report", "assignee_id": gone.id}, as_=exec_user)
    assert response.status == 400, response
    assert response.json["details"] == [{"field": "assignee_id", "message": "must be an active user"}]

    task = api.post("/api/tasks", json={"title": "Report"}, as_=exec_user).json["task"]
    response = api.put(f"/api/tasks/{task['id']}", json={"assignee_id": gone.id, "reporter_id": gone.id},
                       as_=exec_user)
    assert response.status == 400, response
    assert {d["field"] for d in response.json["details"]} == {"assignee_id", "reporter_id"}
    assert all(d["message"] == "must be an active user" for d in response.json["details"])


def test_a_task_whose_assignee_was_deactivated_can_still_be_sent_back(api, db, exec_user):
    leaving = make_user(db)
    task = api.post("/api/tasks", json={"title": "Handover", "assignee_id": leaving.id}, as_=exec_user).json["task"]
    leaving.is_active = False
    db.flush()
    response = api.put(f"/api/tasks/{task['id']}", json={"title": "Handover notes", "assignee_id": leaving.id},
                       as_=exec_user)
    assert response.status == 200, response
    response = api.put(f"/api/tasks/{task['id']}", json={"assignee_id": None}, as_=exec_user)
    assert response.status == 200 and response.json["task"]["assignee_id"] is None


def test_deleting_a_project_leaves_its_tasks_standalone(api, db, exec_user):
    project = make_project(db, members=[exec_user])
    other = make_project(db, members=[exec_user])
    task = api.post("/api/tasks", json={"title": "Build", "resource_type": "project", "resource_id": project.id},
                    as_=exec_user).json["task"]
    kept = api.post("/api/tasks", json={"title": "Other", "resource_type": "project", "resource_id": other.id},
                    as_=exec_user).json["task"]
    subtask = api.post(f"/api/tasks/{task['id']}/subtasks", json={"title": "Part"}, as_=exec_user).json["task"]

    assert api.delete(f"/api/projects/{project.id}", as_=exec_user).status == 200
    detail = api.get(f"/api/tasks/{task['id']}", as_=exec_user)
    assert detail.status == 200, detail
    assert (detail.json["task"]["resource_type"], detail.json["task"]["resource_id"]) == (None, None)
    assert [s["id"] for s in detail.json["subtasks"]] == [subtask["id"]]
    copy = api.post(f"/api/tasks/{task['id']}/duplicate", as_=exec_user).json["task"]
    assert copy["resource_id"] is None  # a copy no longer carries the dead link either
    untouched = api.get(f"/api/tasks/{kept['id']}", as_=exec_user).json["task"]
    assert (untouched["resource_type"], untouched["resource_id"]) == ("project", other.id)


def _deleted_leaves_standalone(api, user, delete_path, task, kept, kept_link):
    """Delete the record; `task` (linked to it) stays, no longer linked, and so does its duplicate; `kept` (linked
    to another record) keeps `kept_link`."""
    assert api.delete(delete_path, as_=user).status == 200
    detail = api.get(f"/api/tasks/{task['id']}", as_=user)
    assert detail.status == 200, detail
    assert (detail.json["task"]["resource_type"], detail.json["task"]["resource_id"]) == (None, None)
    copy = api.post(f"/api/tasks/{task['id']}/duplicate", as_=user).json["task"]
    assert (copy["resource_type"], copy["resource_id"]) == (None, None)
    untouched = api.get(f"/api/tasks/{kept['id']}", as_=user).json["task"]
    assert (untouched["resource_type"], untouched["resource_id"]) == kept_link


def test_deleting_a_deal_leaves_its_tasks_standalone(api, db, exec_user):
    deal, other = make_deal(db), make_deal(db)
    task = api.post("/api/tasks", json={"title": "Follow up", "resource_type": "deal", "resource_id": deal.id},
                    as_=exec_user).json["task"]
    kept = api.post("/api/tasks", json={"title": "Other", "resource_type": "deal", "resource_id": other.id},
                    as_=exec_user).json["task"]
    budget = make_budget(db, resource_type="deal", resource_id=deal.id)
    assert api.delete(f"/api/deals/deals/{deal.id}", as_=exec_user).status == 409  # refused: nothing changed
    assert api.get(f"/api/tasks/{task['id']}", as_=exec_user).json["task"]["resource_id"] == deal.id
    db.delete(budget)
    db.flush()

    _deleted_leaves_standalone(api, exec_user, f"/api/deals/deals/{deal.id}", task, kept, ("deal", other.id))


def test_deleting_a_company_leaves_its_tasks_standalone(api, db, exec_user):
    """A company's task (as a portal request made without a project is) stays a task, of no company."""
    company, other = make_company(db), make_company(db)
    task = api.post("/api/tasks", json={"title": "Request", "resource_type": "company", "resource_id": company.id},
                    as_=exec_user).json["task"]
    kept = api.post("/api/tasks", json={"title": "Other", "resource_type": "company", "resource_id": other.id},
                    as_=exec_user).json["task"]

    _deleted_leaves_standalone(api, exec_user, f"/api/deals/companies/{company.id}", task, kept,
                               ("company", other.id))
