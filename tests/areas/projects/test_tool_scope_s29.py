"""Session 29 (tool-scope audit): a project's views of other areas' records asked those records' row scope alone,
never their tool. docs/decisions/projects.md says `GET /api/projects/:id/tasks` lists "the project's top-level tasks
that the caller may see" and the AI summary is told, and answered to, the tasks its reader sees; a task is seen with
`tasks:view` (tasks' own `task_readers`), so a head whose `tasks` permission is none (an override; a head's task
scope holds every task) read every task of a project there and in its summary. The deal link named the deal's title
and status to a caller whose `deals` permission is none, and let them link any deal (session 28 hid deal names from
such callers in meetings). Now: no task and no task-built summary without `tasks:view`; the deal's title and status
null, and a link refused as for a missing deal (400), without `deals:view`."""
from tests.areas.deals.factories import make_deal
from tests.areas.tasks.factories import make_task
from tests.factories import grant, make_user

from .factories import make_project
from .test_ai_summary_audience_s28 import told  # noqa: F401 - the fixture: the facts each generation is told


def test_a_caller_who_may_not_view_tasks_reads_no_task_of_a_project(api, db, exec_user):
    project = make_project(db, name="Relaunch")
    make_task(db, title="Confidential launch", resource_type="project", resource_id=project.id)
    head = make_user(db, access_level="head")
    grant(db, head, "tasks", "none")  # an override: this head may not view tasks
    assert api.get(f"/api/tasks?resource_id={project.id}", as_=head).status == 403
    listed = api.get(f"/api/projects/{project.id}/tasks", as_=head)
    assert listed.status == 200, listed
    assert listed.json["tasks"] == [] and listed.json["total"] == 0
    grant(db, head, "tasks", "view")
    assert [t["title"] for t in api.get(f"/api/projects/{project.id}/tasks", as_=head).json["tasks"]] == \
        ["Confidential launch"]


def test_the_ai_summary_is_not_built_from_nor_read_with_tasks_by_a_caller_who_may_not_view_tasks(api, db, exec_user,
                                                                                                   told):
    project = make_project(db, name="Relaunch")
    make_task(db, title="Confidential launch", resource_type="project", resource_id=project.id)
    head = make_user(db, access_level="head")
    grant(db, head, "tasks", "none")
    # the executive's summary quotes the task: not answered to the head
    assert api.post(f"/api/projects/{project.id}/ai-summary", as_=exec_user).status == 200
    read = api.get(f"/api/projects/{project.id}/ai-summary", as_=head)
    assert read.status == 200, read
    assert read.json == {"summary": None}
    # the head's own summary is told no task
    made = api.post(f"/api/projects/{project.id}/ai-summary", as_=head)
    assert made.status == 200, made
    assert told[-1]["tasks"] == [] and "Confidential launch" not in str(made.json)
    # with tasks:view the head reads the executive's (all tasks in their scope)
    assert api.post(f"/api/projects/{project.id}/ai-summary", as_=exec_user).status == 200
    grant(db, head, "tasks", "view")
    assert "Confidential launch" in api.get(f"/api/projects/{project.id}/ai-summary", as_=head).json["summary"][
        "summary_text"]


def test_a_deal_link_names_no_deal_to_a_caller_who_may_not_view_deals(api, db, exec_user):
    project = make_project(db)
    secret = make_deal(db, title="Secret merger")
    linked = api.put(f"/api/projects/{project.id}/deal", as_=exec_user, json={"deal_id": secret.id})
    assert linked.status == 200 and linked.json["deal_link"]["deal_title"] == "Secret merger"
    head = make_user(db, access_level="head")
    grant(db, head, "deals", "none")  # an override: this head may not view deals
    read = api.get(f"/api/projects/{project.id}/deal", as_=head)
    assert read.status == 200, read
    assert read.json["deal_link"]["deal_id"] == secret.id
    assert read.json["deal_link"]["deal_title"] is None and read.json["deal_link"]["deal_status"] is None
    assert "Secret merger" not in str(read.json)
    other = make_deal(db, title="Other")
    refused = api.put(f"/api/projects/{project.id}/deal", as_=head, json={"deal_id": other.id})
    assert refused.status == 400, refused
    assert refused.json["details"][0]["field"] == "deal_id"
    assert api.get(f"/api/projects/{project.id}/deal", as_=exec_user).json["deal_link"]["deal_id"] == secret.id
    assert api.put(f"/api/projects/{project.id}/deal", as_=head, json={"deal_id": None}).status == 200  # the project's
    grant(db, head, "deals", "view")
    assert api.put(f"/api/projects/{project.id}/deal", as_=head, json={"deal_id": other.id}).json["deal_link"][
        "deal_title"] == "Other"
