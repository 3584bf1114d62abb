"""A client's request becomes a task; when staff change its status, the requester is told "Your request was
updated: <the task's title>" (portal_request_updated, GET /api/portal/notifications). Staff may since have made
the task private, put it under a private task, or moved it to another client's project, and renamed it: the
portal never shows such a task (docs/decisions/portal.md), so its title must not reach the requester through a
notification either (security audit S4: a portal client read private task titles in its notifications)."""
import pytest

from tests.areas.portal.conftest import TOKEN, Portal, make_client
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task, status
from tests.factories import make_user


@pytest.fixture
def portal(api, set_env):
    set_env(PORTAL_SERVICE_TOKEN=TOKEN)
    return Portal(api)

SECRET = "Internal: write off their overdue invoice, margin is negative"


def _request(portal, company, project) -> str:
    made = portal.post("/requests", company, role="collaborator", user="pu-1",
                       json={"title": "Fix the footer", "projectId": project.id})
    assert made.status == 201, made
    return made.json["taskId"]


def _titles(portal, company) -> list[str]:
    answer = portal.get("/notifications", company, user="pu-1")
    assert answer.status == 200, answer
    return [n["title"] for n in answer.json["notifications"]]


@pytest.mark.parametrize("hide", ["private", "under_private", "other_client"])
def test_a_hidden_request_task_is_not_told_to_its_requester(portal, api, db, hide):
    staff = make_user(db, access_level="executive")
    mine, other = make_client(db), make_client(db)
    project = make_project(db, company_id=mine.id, owner_id=staff.id)
    task_id = _request(portal, mine, project)

    # staff triage the request into internal work, then move it on
    change = {"title": SECRET}
    if hide == "private":
        change["is_private"] = True
    elif hide == "under_private":
        parent = make_task(db, title="Account review", resource_type="project", resource_id=project.id,
                           is_private=True)
        change["parent_task_id"] = parent.id
    else:
        elsewhere = make_project(db, company_id=other.id, owner_id=staff.id)
        change.update(resource_type="project", resource_id=elsewhere.id)
    edited = api.put(f"/api/tasks/{task_id}", json=change, as_=staff)
    assert edited.status == 200, edited
    moved = api.put(f"/api/tasks/{task_id}", json={"status_id": status(db, "in_progress").id}, as_=staff)
    assert moved.status == 200, moved

    titles = _titles(portal, mine)
    assert not any(SECRET in title for title in titles), titles


def test_a_visible_request_task_is_still_told(portal, api, db):
    staff = make_user(db, access_level="executive")
    mine = make_client(db)
    project = make_project(db, company_id=mine.id, owner_id=staff.id)
    task_id = _request(portal, mine, project)
    moved = api.put(f"/api/tasks/{task_id}", json={"status_id": status(db, "in_progress").id}, as_=staff)
    assert moved.status == 200, moved
    assert _titles(portal, mine) == ["Your request was updated: Fix the footer"]
