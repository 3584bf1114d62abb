"""Data scoping: who sees which task, and 404 for tasks outside the caller's scope."""
import pytest

from tests.areas.tasks.factories import add_watcher, make_task
from tests.factories import make_squad, make_user


@pytest.fixture
def world(db):
    red, blue = make_squad(db, name="Red"), make_squad(db, name="Blue")
    boss = make_user(db, access_level="manager", name="Manager", squad_id=None)
    red.manager_id = boss.id
    users = {
        "employee": make_user(db, access_level="employee", squad_id=red.id),
        "lead": make_user(db, access_level="lead", squad_id=red.id),
        "blue": make_user(db, access_level="employee", squad_id=blue.id),
        "report": make_user(db, access_level="employee", squad_id=blue.id, manager_id=boss.id),
        "manager": boss,
        "head": make_user(db, access_level="head", squad_id=blue.id),
        "executive": make_user(db, access_level="executive"),
    }
    e, blue_user = users["employee"], users["blue"]
    tasks = {
        "assigned": make_task(db, title="assigned", assignee_id=e.id),
        "reported": make_task(db, title="reported", reporter_id=e.id, assignee_id=blue_user.id),
        "created": make_task(db, title="created", created_by=e.id),
        "watched": make_task(db, title="watched", assignee_id=blue_user.id),
        "blue": make_task(db, title="blue", assignee_id=blue_user.id, created_by=blue_user.id),
        "report": make_task(db, title="report", assignee_id=users["report"].id),
        "lead": make_task(db, title="lead", reporter_id=users["lead"].id),
        "manager": make_task(db, title="manager", created_by=boss.id),
        "nobody": make_task(db, title="nobody"),
    }
    tasks["sub"] = make_task(db, title="sub", parent_task_id=tasks["assigned"].id, assignee_id=blue_user.id)
    add_watcher(db, tasks["watched"], e)
    db.flush()
    return users, tasks


def visible_titles(api, user):
    response = api.get("/api/tasks", as_=user)
    assert response.status == 200
    return {task["title"] for task in response.json["tasks"]}


def test_employee_sees_assigned_reported_created_watched_and_their_subtasks(api, world):
    users, _ = world
    assert visible_titles(api, users["employee"]) == {"assigned", "reported", "created", "watched", "sub"}


def test_lead_sees_only_their_own(api, world):
    users, _ = world
    assert visible_titles(api, users["lead"]) == {"lead"}


def test_manager_sees_own_squad_and_direct_reports(api, world):
    users, _ = world
    assert visible_titles(api, users["manager"]) == {
        "assigned", "reported", "created", "sub", "report", "lead", "manager"}


@pytest.mark.parametrize("level", ["head", "executive"])
def test_head_and_executive_see_all(api, world, level):
    users, tasks = world
    assert visible_titles(api, users[level]) == set(tasks)


def test_out_of_scope_task_is_404_everywhere(api, db, world):
    users, tasks = world
    me, task = users["employee"], tasks["blue"]
    base = f"/api/tasks/{task.id}"
    calls = [
        ("get", base, None), ("put", base, {"title": "x"}), ("post", f"{base}/duplicate", None),
        ("get", f"{base}/history", None), ("put", f"{base}/todos", {"todos": []}),
        ("get", f"{base}/subtasks", None), ("post", f"{base}/subtasks", {"title": "x"}),
        ("post", f"{base}/watch", None), ("delete", f"{base}/watch", None),
        ("get", f"{base}/resources", None), ("post", f"{base}/resources", {"url": "https://a.b", "title": "t"}),
        ("put", f"{base}/resources/reorder", {"order": ["x"]}), ("delete", f"{base}/resources/x", None),
    ]
    for method, path, body in calls:
        kwargs = {"json": body} if body is not None else {}
        response = getattr(api, method)(path, as_=me, **kwargs)
        assert response.status == 404, (method, path, response)
    from chalicelib.core.models import UserPermission

    db.merge(UserPermission(user_id=me.id, tool="tasks", level="manage"))
    db.flush()
    assert api.delete(base, as_=me).status == 404
    assert api.get(base, as_=users["executive"]).status == 200


def test_in_scope_detail_is_200_for_each_reason(api, world):
    users, tasks = world
    for name in ("assigned", "reported", "created", "watched", "sub"):
        assert api.get(f"/api/tasks/{tasks[name].id}", as_=users["employee"]).status == 200, name
    assert api.get(f"/api/tasks/{tasks['report'].id}", as_=users["manager"]).status == 200
    assert api.get(f"/api/tasks/{tasks['blue'].id}", as_=users["manager"]).status == 404


def test_detail_subtasks_follow_the_parent(api, world):
    users, tasks = world
    detail = api.get(f"/api/tasks/{tasks['assigned'].id}", as_=users["employee"]).json
    assert [s["title"] for s in detail["subtasks"]] == ["sub"]


def test_creator_sees_the_task_they_created_for_someone_else(api, db, world):
    users, _ = world
    response = api.post("/api/tasks", as_=users["lead"], json={"title": "for blue", "assignee_id": users["blue"].id})
    assert response.status == 201
    assert api.get(f"/api/tasks/{response.json['task']['id']}", as_=users["lead"]).status == 200
    assert api.get(f"/api/tasks/{response.json['task']['id']}", as_=users["employee"]).status == 404


def test_parent_out_of_scope_answers_400_like_a_missing_one(api, world):
    users, tasks = world
    me, hidden, mine = users["employee"], tasks["blue"], tasks["assigned"]
    missing = api.post("/api/tasks", as_=me, json={"title": "x", "parent_task_id": "no-such-task"})
    assert missing.status == 400, missing
    created = api.post("/api/tasks", as_=me, json={"title": "x", "parent_task_id": hidden.id})
    assert created.status == 400, created
    assert created.json == missing.json
    moved = api.put(f"/api/tasks/{mine.id}", as_=me, json={"parent_task_id": hidden.id})
    assert moved.status == 400, moved
    assert moved.json == api.put(f"/api/tasks/{mine.id}", as_=me, json={"parent_task_id": "no-such-task"}).json
    assert api.get(f"/api/tasks/{mine.id}", as_=me).json["task"]["parent_task_id"] is None
    # A parent the caller can see is accepted; the subtask route answers 404 for a hidden parent
    # (an id in the path), checked in test_out_of_scope_task_is_404_everywhere.
    ok = api.post("/api/tasks", as_=me, json={"title": "y", "parent_task_id": tasks["created"].id})
    assert ok.status == 201, ok
    assert api.put(f"/api/tasks/{mine.id}", as_=me, json={"parent_task_id": tasks["watched"].id}).status == 200
    assert api.post("/api/tasks", as_=users["executive"], json={"title": "z", "parent_task_id": hidden.id}).status == 201


def _grandchildren(db, world):
    """Under `sub` (the employee's task's subtask, assigned to blue): `hidden`, blue's own, which neither the
    employee nor the manager may open (the parent rule goes one level), and `mine`, the employee's."""
    users, tasks = world
    blue = users["blue"]
    hidden = make_task(db, title="hidden", parent_task_id=tasks["sub"].id, assignee_id=blue.id, created_by=blue.id,
                       reporter_id=blue.id)
    mine = make_task(db, title="mine", parent_task_id=tasks["sub"].id, assignee_id=users["employee"].id)
    db.flush()
    return hidden, mine


def _subtask_counts(api, user, task_id):
    """The task's subtask_count in its detail, in the task list and in its parent's subtask list, and the
    titles of the subtasks its detail shows."""
    detail = api.get(f"/api/tasks/{task_id}", as_=user)
    assert detail.status == 200, detail
    listed = api.get("/api/tasks?limit=500", as_=user)
    assert listed.status == 200, listed
    parent = detail.json["task"]["parent_task_id"]
    siblings = api.get(f"/api/tasks/{parent}/subtasks", as_=user)
    assert siblings.status == 200, siblings
    in_list = {t["id"]: t["subtask_count"] for t in listed.json["tasks"]}[task_id]
    in_siblings = {t["id"]: t["subtask_count"] for t in siblings.json["subtasks"]}[task_id]
    return ((detail.json["task"]["subtask_count"], in_list, in_siblings),
            sorted(s["title"] for s in detail.json["subtasks"]))


@pytest.mark.parametrize("level", ["employee", "manager"])
def test_subtask_count_counts_only_the_subtasks_the_caller_may_open(api, db, world, level):
    """A subtask hidden from the caller (404) is not counted: the count is the detail's list (audit: a count
    of subtasks that answer 404 told that they exist). The manager's team holds the employee, not blue."""
    users, tasks = world
    hidden, _ = _grandchildren(db, world)
    me = users[level]
    assert api.get(f"/api/tasks/{hidden.id}", as_=me).status == 404
    counts, shown = _subtask_counts(api, me, tasks["sub"].id)
    assert shown == ["mine"]
    assert counts == (1, 1, 1)


def test_subtask_count_of_a_task_whose_subtasks_are_all_hidden_is_zero(api, db, world):
    users, tasks = world
    _, mine = _grandchildren(db, world)
    db.delete(mine)
    db.flush()
    counts, shown = _subtask_counts(api, users["employee"], tasks["sub"].id)
    assert shown == [] and counts == (0, 0, 0)


@pytest.mark.parametrize("level", ["executive", "squad manager"])
def test_subtask_count_counts_every_subtask_the_caller_sees(api, db, world, level):
    """The executive sees and counts every subtask; a manager in blue's squad (their team: the squad is a
    parameter of the scoped count) whom the employee reports to sees and counts blue's too."""
    users, tasks = world
    _grandchildren(db, world)
    if level == "executive":
        me = users["executive"]
    else:
        me = make_user(db, access_level="manager", squad_id=users["blue"].squad_id)
        users["employee"].manager_id = me.id
        db.flush()
    counts, shown = _subtask_counts(api, me, tasks["sub"].id)
    assert shown == ["hidden", "mine"]
    assert counts == (2, 2, 2)
