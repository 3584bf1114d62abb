"""Session 24 (audit): a project moved to another client listed the requests the first client's portal users filed on
it (task title and description, the client's own words) to the new client's portal, and counted them there. Like a
client's note (session 22), a request is now listed and counted only to the company that filed it; staff tasks
follow the project as before."""
from chalicelib.areas.portal.models import PortalSubmission
from chalicelib.areas.tasks.models import Task
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task


def _tasks(portal, company, project, **kw):
    answer = portal.get(f"/projects/{project.id}/tasks", company, **kw)
    assert answer.status == 200, answer
    return sorted((t["title"], t.get("description")) for t in answer.json["tasks"])


def _counts(portal, company, project, **kw):
    """The project's task counts as the company's portal states them: list, detail and dashboard."""
    listed = portal.get("/projects", company, **kw)
    detail = portal.get(f"/projects/{project.id}", company, **kw)
    board = portal.get("/dashboard", company, **kw)
    assert listed.status == detail.status == board.status == 200, (listed, detail, board)
    return ([p["task_counts"]["total"] for p in listed.json["projects"] if p["id"] == project.id],
            detail.json["project"]["task_counts"]["total"],
            [p["task_counts"]["total"] for p in board.json["projects"] if p["id"] == project.id],
            board.json["taskCounts"]["total"])


def _request(portal, company, project, title, **kw):
    made = portal.post("/requests", company, role="collaborator",
                       json={"title": title, "description": f"{title}: private words", "projectId": project.id}, **kw)
    assert made.status == 201, made
    return made.json["taskId"]


def test_a_moved_project_keeps_the_first_clients_requests_from_the_new_client(portal, db, api, exec_user):
    first, second = make_client(db), make_client(db)
    project = make_project(db, company_id=first.id)
    make_task(db, resource_type="project", resource_id=project.id, title="Staff work", description="planned")
    _request(portal, first, project, "A's secret request", user="pu-a")
    _request(portal, first, project, "Filed with no user id", user=None)
    mine = [("A's secret request", "A's secret request: private words"),
            ("Filed with no user id", "Filed with no user id: private words"), ("Staff work", "planned")]
    assert _tasks(portal, first, project) == mine
    assert _counts(portal, first, project) == ([3], 3, [3], 3)
    moved = api.put(f"/api/projects/{project.id}", as_=exec_user, json={"company_id": second.id})
    assert moved.status == 200, moved
    # was: both requests listed (and counted) to the new client
    assert _tasks(portal, second, project, user="pu-b") == [("Staff work", "planned")]
    assert _counts(portal, second, project, user="pu-b") == ([1], 1, [1], 1)
    # the new client's own request is theirs
    _request(portal, second, project, "B's request", user="pu-b")
    assert _tasks(portal, second, project, user="pu-b") == [("B's request", "B's request: private words"),
                                                            ("Staff work", "planned")]
    # moved back: the first client reads its own requests again, not the second's
    assert api.put(f"/api/projects/{project.id}", as_=exec_user, json={"company_id": first.id}).status == 200
    assert _tasks(portal, first, project) == mine
    assert _counts(portal, first, project) == ([3], 3, [3], 3)


def test_a_request_of_the_company_moved_into_another_clients_project_is_not_listed_there(portal, db):
    first, second = make_client(db), make_client(db)
    made = portal.post("/requests", first, role="collaborator", user=None,
                       json={"title": "No project named", "description": "our words"})
    assert made.status == 201, made
    project = make_project(db, company_id=second.id)
    task = db.get(Task, made.json["taskId"])
    task.resource_type, task.resource_id = "project", project.id  # staff put it in the other client's project
    db.flush()
    assert _tasks(portal, second, project) == []
    assert _counts(portal, second, project) == ([0], 0, [0], 0)


def test_a_request_recorded_before_session_24_is_known_by_its_submission(portal, db, api, exec_user):
    """A request filed before session 24 has no company in its history; its submission (a portal user id was sent)
    names the company."""
    first, second = make_client(db), make_client(db)
    project = make_project(db, company_id=first.id)
    old = make_task(db, resource_type="project", resource_id=project.id, title="Old request", description="old words")
    db.add(PortalSubmission(record_type="task", record_id=old.id, company_id=first.id, portal_user_id="pu-a"))
    db.flush()
    assert _tasks(portal, first, project) == [("Old request", "old words")]
    assert api.put(f"/api/projects/{project.id}", as_=exec_user, json={"company_id": second.id}).status == 200
    assert _tasks(portal, second, project) == []
    assert _counts(portal, second, project) == ([0], 0, [0], 0)


def test_a_group_sister_counts_the_groups_requests(portal, db):
    """The dashboard is group-aware: a sister of the group counts the requests its group's companies filed on their
    own projects (as it reads their notes)."""
    first, sister = make_client(db, group="g1"), make_client(db, group="g1")
    project = make_project(db, company_id=first.id)
    _request(portal, first, project, "Grouped")
    board = portal.get("/dashboard", sister, group=[first])
    assert board.status == 200, board
    assert [p["task_counts"]["total"] for p in board.json["projects"] if p["id"] == project.id] == [1]
