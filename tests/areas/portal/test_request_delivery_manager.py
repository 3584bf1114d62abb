"""A client's request (document 3, portal `POST /requests`: "creates a task, assigns an SLA if applicable, notifies the
delivery manager"): the delivery manager told of it watches the task, so that the notice's link opens it and it shows
in their task lists (document 1's scoping: employee, lead and manager see the tasks they watch). The task has no
assignee, reporter or creator: before, only head and executive could open it. docs/decisions/portal.md, "Requests"."""
from sqlalchemy import select

from chalicelib.areas.tasks.models import TaskWatcher
from chalicelib.core.notify import Notification
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def _request(portal, company, project, title="Checkout broken"):
    answer = portal.post("/requests", company, role="collaborator", json={"title": title, "projectId": project.id})
    assert answer.status == 201, answer
    return answer.json["taskId"]


def _watchers(db, task_id) -> list[str]:
    return db.scalars(select(TaskWatcher.user_id).where(TaskWatcher.task_id == task_id)).all()


def test_the_delivery_manager_told_of_a_request_opens_its_task_and_finds_it_in_their_list(portal, api, db):
    manager = make_user(db, access_level="lead", name="Dana Delivery")
    colleague = make_user(db, access_level="lead")
    mine = make_client(db)
    project = make_project(db, company_id=mine.id, delivery_manager_id=manager.id)
    task_id = _request(portal, mine, project)
    link = db.scalar(select(Notification.action_url).where(Notification.user_id == manager.id,
                                                           Notification.type == "portal_request"))
    assert link == f"/tasks/{task_id}"
    opened = api.get(link.replace("/tasks/", "/api/tasks/"), as_=manager)  # the notice's link
    assert opened.status == 200, opened
    assert [w["id"] for w in opened.json["watchers"]] == [manager.id]
    assert [t["id"] for t in api.get("/api/tasks", as_=manager).json["tasks"]] == [task_id]
    # nobody else: another lead still does not see the request's task
    assert api.get(f"/api/tasks/{task_id}", as_=colleague).status == 404
    assert api.get("/api/tasks", as_=colleague).json["tasks"] == []


def test_the_client_profile_s_delivery_manager_watches_when_the_project_names_none(portal, api, db):
    manager = make_user(db, access_level="employee")
    mine = make_client(db, manager=manager)
    project = make_project(db, company_id=mine.id)
    task_id = _request(portal, mine, project)
    assert _watchers(db, task_id) == [manager.id]
    assert api.get(f"/api/tasks/{task_id}", as_=manager).status == 200


def test_a_deactivated_delivery_manager_is_made_no_watcher_and_the_request_is_taken(portal, db):
    manager = make_user(db, is_active=False)
    mine = make_client(db)
    project = make_project(db, company_id=mine.id, delivery_manager_id=manager.id)
    task_id = _request(portal, mine, project)
    assert _watchers(db, task_id) == []
    assert db.scalars(select(Notification).where(Notification.user_id == manager.id)).all() == []


def test_a_request_without_a_delivery_manager_has_no_watcher(portal, db):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    assert _watchers(db, _request(portal, mine, project)) == []


def test_the_request_s_task_history_and_watcher_inserts_cost_no_round_trip_of_their_own(portal, db, engine):
    """The watcher is added without a round trip: its INSERT, the task's and the history entry's are written later
    (core.db.writes_later: on pg8000 they leave with the request's next statement), so a request costs one round trip
    fewer than before the watcher existed (the task's INSERT was a flush of its own)."""
    from sqlalchemy import event

    from chalicelib.core.db import writes_later

    manager = make_user(db)
    mine = make_client(db)
    project = make_project(db, company_id=mine.id, delivery_manager_id=manager.id)
    inserts = {}

    def before(conn, cursor, statement, parameters, context, executemany):
        words = statement.split()
        if words[:2] == ["INSERT", "INTO"] and words[2] in ("tasks", "task_watchers", "history_entries"):
            inserts[words[2]] = writes_later(context)

    event.listen(engine, "before_cursor_execute", before)
    try:
        task_id = _request(portal, mine, project)
    finally:
        event.remove(engine, "before_cursor_execute", before)
    assert inserts == {"tasks": True, "history_entries": True, "task_watchers": True}, inserts
    assert _watchers(db, task_id) == [manager.id]


def test_a_delivery_manager_who_may_not_read_tasks_is_told_without_the_request(portal, db):
    """Session 26: a manager whose `tasks` permission is none is passed over (projects' `request_manager`: the next
    in the chain who may read tasks watches the request and is told it in full); before, they were told "A client
    sent a request" (their link would be a 403) and the request waited on them. With nobody in the chain who may
    read tasks, nobody is told."""
    from tests.factories import grant

    manager, owner = make_user(db, access_level="manager"), make_user(db, access_level="manager")
    grant(db, manager, "tasks", "none")
    mine = make_client(db)
    project = make_project(db, company_id=mine.id, delivery_manager_id=manager.id, owner_id=owner.id)
    task_id = _request(portal, mine, project, title="Secret launch date")
    told = db.execute(select(Notification.user_id, Notification.action_url, Notification.resource_id)
                      .where(Notification.type == "portal_request")).all()
    assert [tuple(row) for row in told] == [(owner.id, f"/tasks/{task_id}", task_id)]
    assert _watchers(db, task_id) == [owner.id]
    grant(db, owner, "tasks", "none")
    alone = make_project(db, company_id=mine.id, delivery_manager_id=manager.id, owner_id=owner.id)
    other = _request(portal, mine, alone, title="Another")
    assert db.scalar(select(Notification.id).where(Notification.resource_id == other)) is None
    assert _watchers(db, other) == []