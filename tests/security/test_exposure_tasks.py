"""The portal's task list (GET /api/portal/projects/{id}/tasks, a portal client of the project's company) leaves
out private tasks and their subtasks (docs/decisions/portal.md). Subtasks nest to any depth: a subtask of a
subtask of a private task is private too, and must not reach the client."""
from tests.areas.portal.conftest import TOKEN, Portal, make_client
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import make_user


def test_a_portal_client_sees_no_task_nested_under_a_private_task(api, db, set_env):
    set_env(PORTAL_SERVICE_TOKEN=TOKEN)
    portal = Portal(api)
    company = make_client(db)
    staff = make_user(db, access_level="executive")
    project = make_project(db, company_id=company.id, name="Website", owner_id=staff.id)
    make_task(db, title="Public work", resource_type="project", resource_id=project.id)
    private = make_task(db, title="Margin review", resource_type="project", resource_id=project.id, is_private=True)

    # staff break the private task down through the API, two levels deep, in the same project
    where = {"resource_type": "project", "resource_id": project.id}
    child = api.post("/api/tasks", as_=staff, json={"title": "Cost check", "parent_task_id": private.id, **where})
    assert child.status == 201, child
    grandchild = api.post("/api/tasks", as_=staff, json={
        "title": "Negotiate the supplier's 40% discount down", "parent_task_id": child.json["task"]["id"], **where})
    assert grandchild.status == 201, grandchild

    answer = portal.get(f"/projects/{project.id}/tasks", company)
    assert answer.status == 200, answer
    titles = [task["title"] for task in answer.json["tasks"]]
    assert titles == ["Public work"], titles
