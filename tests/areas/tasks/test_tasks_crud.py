"""Create, detail, update, duplicate, delete and history of tasks, through HTTP."""
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from chalicelib.areas.agents.models import AgentTask
from chalicelib.areas.tasks.models import Task
from chalicelib.core.notify import Notification
from tests.areas.tasks.factories import add_watcher, make_task, make_todo, phase, priority, status, task_type
from tests.areas.deals.factories import make_contact
from tests.areas.projects.factories import make_project
from tests.factories import grant, make_user


def notifications(db, user, type_):
    return db.scalars(select(Notification).where(Notification.user_id == user.id, Notification.type == type_)).all()


@pytest.mark.smoke
def test_create_answers_201_with_default_status_and_joined_fields(api, db, exec_user):
    bob = make_user(db, name="Bob", picture="https://img/bob.png")
    high = priority(db, "high")
    response = api.post("/api/tasks", as_=exec_user, json={
        "title": "  Write brief  ", "assignee_id": bob.id, "priority_id": high.id, "due_date": "2026-03-01",
        "is_private": True, "estimated_hours": 3, "unknown_field": "ignored", "subtask_count": 99})
    assert response.status == 201, response
    task = response.json["task"]
    default = status(db, "todo")
    assert task["title"] == "Write brief"
    assert task["status_id"] == default.id and task["status_value"] == "todo"
    assert task["status_label"] == default.label and task["status_color"] == default.color
    assert task["priority_label"] == high.label and task["priority_value"] == "high"
    assert task["assignee_name"] == "Bob" and task["assignee_picture"] == "https://img/bob.png"
    assert task["reporter_id"] == exec_user.id and task["reporter_name"] == exec_user.name
    assert task["created_by"] == exec_user.id and task["created_by_name"] == exec_user.name
    assert task["is_private"] == 1 and task["due_date"] == "2026-03-01" and task["estimated_hours"] == 3
    assert task["subtask_count"] == 0 and task["todo_count"] == 0 and task["todo_done_count"] == 0
    assert task["created_at"].endswith("Z")


@pytest.mark.smoke
def test_detail_returns_task_todos_subtasks_watchers(api, db, exec_user):
    watcher = make_user(db, name="Wanda", picture="https://img/w.png")
    urgent, doing = priority(db, "urgent"), status(db, "in_progress")
    task = make_task(db, title="Parent", created_by=exec_user.id)
    make_todo(db, task, title="b", position=2, is_done=True)
    make_todo(db, task, title="a", position=1, assignee_id=watcher.id)
    make_task(db, title="Child", parent_task_id=task.id, priority_id=urgent.id, status_id=doing.id,
              assignee_id=watcher.id)
    add_watcher(db, task, watcher)
    response = api.get(f"/api/tasks/{task.id}", as_=exec_user)
    assert response.status == 200
    body = response.json
    assert set(body) == {"task", "todos", "subtasks", "watchers", "agent"}
    assert body["task"]["id"] == task.id
    assert (body["task"]["subtask_count"], body["task"]["todo_count"], body["task"]["todo_done_count"]) == (1, 2, 1)
    assert [t["title"] for t in body["todos"]] == ["a", "b"]
    assert body["todos"][0]["assignee_name"] == "Wanda" and body["todos"][1]["is_done"] == 1
    sub = body["subtasks"][0]
    assert sub["title"] == "Child" and sub["priority_label"] == urgent.label
    assert sub["priority_color"] == urgent.color and sub["status_value"] == "in_progress"
    assert sub["assignee_name"] == "Wanda"
    assert body["watchers"] == [{"id": watcher.id, "name": "Wanda", "picture": "https://img/w.png"}]
    assert body["agent"] is None


def test_detail_of_missing_task_is_404(api, exec_user):
    response = api.get("/api/tasks/00000000-0000-0000-0000-000000000000", as_=exec_user)
    assert response.status == 404
    assert response.json == {"error": "Task not found"}


def test_create_without_title_is_400(api, exec_user):
    for body in ({}, {"title": ""}, {"title": "   "}, {"title": 5}):
        response = api.post("/api/tasks", as_=exec_user, json=body)
        assert response.status == 400, body
        assert response.json["details"][0]["field"] == "title"


def test_create_with_invalid_json_is_400(api, exec_user):
    response = api.post("/api/tasks", as_=exec_user, body=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status == 400


@pytest.mark.parametrize("field,list_key,other_list,value", [
    ("status_id", "task_status", "task_priority", "high"),
    ("priority_id", "task_priority", "task_status", "done"),
    ("type_id", "task_type", "task_phase", "design"),
    ("phase_id", "task_phase", "task_type", "bug"),
])
def test_config_item_of_the_wrong_list_is_400(api, db, exec_user, field, list_key, other_list, value):
    from tests.factories import config_item

    wrong = config_item(db, other_list, value)
    response = api.post("/api/tasks", as_=exec_user, json={"title": "x", field: wrong.id})
    assert response.status == 400
    assert response.json["details"] == [{"field": field, "message": f"must be an item of the {list_key} list"}]
    response = api.post("/api/tasks", as_=exec_user, json={"title": "x", field: "no-such-item"})
    assert response.status == 400


def test_unknown_assignee_is_400(api, exec_user):
    response = api.post("/api/tasks", as_=exec_user, json={"title": "x", "assignee_id": "nobody"})
    assert response.status == 400
    assert response.json["details"] == [{"field": "assignee_id", "message": "must be an existing user"}]


@pytest.mark.parametrize("value", ["01/02/2026", "2026-2-1", "2026-02-30", "tomorrow", 20260201,
                                   "2026-02-01T00:00:00"])
def test_dates_must_be_yyyy_mm_dd(api, exec_user, value):
    response = api.post("/api/tasks", as_=exec_user, json={"title": "x", "due_date": value})
    assert response.status == 400
    assert response.json["details"][0]["field"] == "due_date"
    response = api.post("/api/tasks", as_=exec_user, json={"title": "x", "start_date": value})
    assert response.status == 400


def test_is_private_must_be_boolean(api, exec_user):
    assert api.post("/api/tasks", as_=exec_user, json={"title": "x", "is_private": "yes"}).status == 400
    response = api.post("/api/tasks", as_=exec_user, json={"title": "x", "is_private": False})
    assert response.status == 201 and response.json["task"]["is_private"] == 0


def test_create_unknown_parent_is_400(api, exec_user):
    response = api.post("/api/tasks", as_=exec_user, json={"title": "x", "parent_task_id": "missing"})
    assert response.status == 400


def test_create_needs_tasks_update(api, db):
    viewer = make_user(db, access_level="employee")
    grant(db, viewer, "tasks", "view")
    assert api.post("/api/tasks", as_=viewer, json={"title": "x"}).status == 403
    assert api.get("/api/tasks", as_=viewer).status == 200


def test_reads_need_tasks_view(api, db):
    outsider = make_user(db, access_level="employee")
    grant(db, outsider, "tasks", "none")
    task = make_task(db, created_by=outsider.id)
    assert api.get("/api/tasks", as_=outsider).status == 403
    assert api.get(f"/api/tasks/{task.id}", as_=outsider).status == 403
    assert api.post(f"/api/tasks/{task.id}/watch", as_=outsider).status == 403


def test_requests_without_token_are_401(api):
    assert api.get("/api/tasks").status == 401


def test_create_logs_history_and_notifies_assignee(api, db, exec_user):
    bob = make_user(db)
    task = api.post("/api/tasks", as_=exec_user, json={"title": "x", "assignee_id": bob.id}).json["task"]
    history = api.get(f"/api/tasks/{task['id']}/history", as_=exec_user).json["history"]
    assert [entry["action"] for entry in history] == ["created"]
    assert history[0]["actor_id"] == exec_user.id
    sent = notifications(db, bob, "task_assigned")
    assert len(sent) == 1 and sent[0].resource_id == task["id"] and sent[0].actor_id == exec_user.id


def test_create_for_oneself_sends_no_notification(api, db, exec_user):
    api.post("/api/tasks", as_=exec_user, json={"title": "x", "assignee_id": exec_user.id})
    assert notifications(db, exec_user, "task_assigned") == []


def test_create_agent_task_creates_meta_record(api, db, exec_user):
    agent_type = task_type(db, "agent_task")
    task = api.post("/api/tasks", as_=exec_user, json={"title": "x", "type_id": agent_type.id}).json["task"]
    assert task["type_value"] == "agent_task" and task["type_label"] == agent_type.label
    detail = api.get(f"/api/tasks/{task['id']}", as_=exec_user).json
    assert detail["agent"]["stage"] == "draft" and detail["agent"]["retry_count"] == 0
    assert detail["agent"]["task_id"] == task["id"]
    plain = api.post("/api/tasks", as_=exec_user, json={"title": "y", "type_id": task_type(db, "bug").id}).json["task"]
    assert db.scalar(select(AgentTask).where(AgentTask.task_id == plain["id"])) is None


def test_update_sets_fields_and_updated_at(api, db, exec_user):
    old = datetime(2025, 1, 1, tzinfo=timezone.utc)
    task = make_task(db, title="Old", created_by=exec_user.id, updated_at=old, description="keep")
    design = phase(db, "design")
    sprint_id = make_sprint(api, db, exec_user)
    make_contact(db, id="contact-1")  # a reporting contact must exist (session 26)
    response = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={
        "title": "New", "phase_id": design.id, "sprint_id": sprint_id, "requirements": "r", "scope": "s",
        "delivery_notes": "d", "testing_notes": "t", "estimate_compute_hours": 2.5, "estimate_total_cost": 100,
        "reported_by_contact_id": "contact-1", "approved_by_user_id": exec_user.id,
        "approved_at": "2026-01-02T03:04:05Z", "is_private": 1, "sort_order": 4, "start_date": None,
        "subtask_count": 7, "created_at": "2020-01-01T00:00:00Z"})
    assert response.status == 200, response
    body = response.json["task"]
    assert body["title"] == "New" and body["description"] == "keep"
    assert body["phase_label"] == design.label and body["phase_color"] == design.color
    assert body["sprint_id"] == sprint_id and body["requirements"] == "r" and body["testing_notes"] == "t"
    assert body["estimate_compute_hours"] == 2.5 and body["estimate_total_cost"] == 100
    assert body["approved_by_name"] == exec_user.name and body["approved_at"] == "2026-01-02T03:04:05Z"
    assert body["reported_by_contact_id"] == "contact-1" and body["is_private"] == 1 and body["sort_order"] == 4
    assert body["subtask_count"] == 0 and body["created_at"] != "2020-01-01T00:00:00Z"
    assert datetime.fromisoformat(body["updated_at"].replace("Z", "+00:00")) > old + timedelta(days=300)


def make_sprint(api, db, user) -> str:
    response = api.post("/api/sprints", as_=user, json={"project_id": make_project(db).id, "name": "Sprint"})
    assert response.status == 201, response
    return response.json["sprint"]["id"]


def test_sprint_id_must_name_an_existing_sprint(api, db, exec_user):
    created = api.post("/api/tasks", as_=exec_user, json={"title": "x", "sprint_id": "no-such-sprint"})
    assert created.status == 400, created
    assert created.json["details"] == [{"field": "sprint_id", "message": "must be an existing sprint"}]
    task = make_task(db)
    moved = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"sprint_id": "no-such-sprint"})
    assert moved.status == 400, moved
    assert api.get(f"/api/tasks/{task.id}", as_=exec_user).json["task"]["sprint_id"] is None
    sprint_id = make_sprint(api, db, exec_user)
    ok = api.post("/api/tasks", as_=exec_user, json={"title": "y", "sprint_id": sprint_id})
    assert ok.status == 201 and ok.json["task"]["sprint_id"] == sprint_id
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"sprint_id": sprint_id}).status == 200
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"sprint_id": None}).json["task"]["sprint_id"] is None


def test_update_without_fields_is_400(api, db, exec_user):
    task = make_task(db)
    for payload in ({}, {"unknown": 1}, {"subtask_count": 3}):
        response = api.put(f"/api/tasks/{task.id}", as_=exec_user, json=payload)
        assert response.status == 400
        assert response.json == {"error": "No fields to update"}


def test_update_rejects_null_title_and_wrong_refs(api, db, exec_user):
    task = make_task(db)
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"title": None}).status == 400
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"is_private": None}).status == 400
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user,
                   json={"status_id": priority(db, "low").id}).status == 400
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"assignee_id": "ghost"}).status == 400
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"due_date": "31-12-2026"}).status == 400
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"parent_task_id": task.id}).status == 400


def test_update_cannot_move_a_task_under_its_own_subtask(api, db, exec_user):
    task = make_task(db)
    child = make_task(db, parent_task_id=task.id)
    grandchild = make_task(db, parent_task_id=child.id)
    response = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"parent_task_id": grandchild.id})
    assert response.status == 400
    other = make_task(db)
    assert api.put(f"/api/tasks/{grandchild.id}", as_=exec_user, json={"parent_task_id": other.id}).status == 200


def test_update_missing_task_is_404(api, exec_user):
    assert api.put("/api/tasks/missing", as_=exec_user, json={"title": "x"}).status == 404


def test_update_clears_nullable_fields(api, db, exec_user):
    bob = make_user(db)
    task = make_task(db, assignee_id=bob.id, description="text")
    body = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"assignee_id": None, "description": None}).json
    assert body["task"]["assignee_id"] is None and body["task"]["description"] is None


def test_update_status_logs_status_changed(api, db, exec_user):
    todo, done = status(db, "todo"), status(db, "done")
    task = make_task(db, status_id=todo.id)
    response = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"status_id": done.id})
    assert response.json["task"]["status_label"] == done.label
    history = api.get(f"/api/tasks/{task.id}/history", as_=exec_user).json["history"]
    assert [h["action"] for h in history] == ["status_changed"]
    assert history[0]["changes"] == {"status_id": {"from": todo.id, "to": done.id}}
    api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"status_id": done.id, "title": "same status"})
    assert len(api.get(f"/api/tasks/{task.id}/history", as_=exec_user).json["history"]) == 1


def test_update_assignee_logs_assigned_and_notifies(api, db, exec_user):
    old, new = make_user(db), make_user(db)
    task = make_task(db, assignee_id=old.id)
    api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"assignee_id": new.id})
    history = api.get(f"/api/tasks/{task.id}/history", as_=exec_user).json["history"]
    assert [h["action"] for h in history] == ["assigned"]
    assert history[0]["changes"] == {"assignee_id": {"from": old.id, "to": new.id}}
    assert len(notifications(db, new, "task_assigned")) == 1
    assert notifications(db, old, "task_assigned") == []
    api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"assignee_id": exec_user.id})
    assert notifications(db, exec_user, "task_assigned") == []


def test_update_type_to_agent_task_creates_meta_once(api, db, exec_user):
    task = make_task(db)
    agent_type = task_type(db, "agent_task")
    api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"type_id": agent_type.id})
    api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"type_id": task_type(db, "bug").id})
    api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"type_id": agent_type.id})
    assert len(db.scalars(select(AgentTask).where(AgentTask.task_id == task.id)).all()) == 1
    assert api.get(f"/api/tasks/{task.id}", as_=exec_user).json["agent"]["stage"] == "draft"


def test_duplicate_copies_fields_resets_status_and_reporter(api, db, exec_user):
    owner, someone = make_user(db), make_user(db)
    done, high, bug = status(db, "done"), priority(db, "high"), task_type(db, "bug")
    project = make_project(db)  # session 24: a link to a project that does not exist is not copied
    original = make_task(db, title="Orig", description="d", status_id=done.id, priority_id=high.id,
                         type_id=bug.id, assignee_id=owner.id, reporter_id=someone.id, created_by=someone.id,
                         estimated_hours=5, resource_type="project", resource_id=project.id, is_private=True)
    make_todo(db, original)
    response = api.post(f"/api/tasks/{original.id}/duplicate", as_=exec_user)
    assert response.status == 201
    copy = response.json["task"]
    assert copy["id"] != original.id and copy["title"] == "Orig (copy)"
    assert copy["status_id"] == status(db, "todo").id
    assert copy["reporter_id"] == exec_user.id
    assert (copy["description"], copy["priority_id"], copy["type_id"], copy["assignee_id"]) == (
        "d", high.id, bug.id, owner.id)
    assert (copy["estimated_hours"], copy["resource_type"], copy["resource_id"], copy["is_private"]) == (
        5, "project", project.id, 1)
    assert copy["todo_count"] == 0
    history = api.get(f"/api/tasks/{copy['id']}/history", as_=exec_user).json["history"]
    assert [h["action"] for h in history] == ["created"]


def test_duplicate_has_the_side_effects_of_a_create(api, db, exec_user):
    """Duplicate: every other field copied; todos, watchers and links are not; task_assigned to the copied
    assignee (not to the caller); the agent meta record when the type is agent_task (docs/decisions/tasks.md)."""
    bob = make_user(db)
    agent_type = task_type(db, "agent_task")
    parent = make_task(db, title="Parent")
    original = make_task(db, title="Agent work", type_id=agent_type.id, assignee_id=bob.id, parent_task_id=parent.id,
                         sort_order=3, due_date=datetime(2026, 6, 1).date(), internal_hours=2.5)
    add_watcher(db, original, bob)
    api.post(f"/api/tasks/{original.id}/resources", as_=exec_user, json={"url": "https://a.com", "title": "a"})
    response = api.post(f"/api/tasks/{original.id}/duplicate", as_=exec_user)
    assert response.status == 201, response
    copy = response.json["task"]
    assert (copy["parent_task_id"], copy["sort_order"], copy["due_date"], copy["internal_hours"]) == (
        parent.id, 3, "2026-06-01", 2.5)
    assert copy["created_by"] == exec_user.id and copy["type_value"] == "agent_task"
    sent = notifications(db, bob, "task_assigned")
    assert [n.resource_id for n in sent] == [copy["id"]]
    detail = api.get(f"/api/tasks/{copy['id']}", as_=exec_user).json
    assert detail["agent"]["stage"] == "draft" and detail["watchers"] == []
    assert api.get(f"/api/tasks/{copy['id']}/resources", as_=exec_user).json["resources"] == []
    mine = make_task(db, assignee_id=exec_user.id)
    assert api.post(f"/api/tasks/{mine.id}/duplicate", as_=exec_user).status == 201
    assert notifications(db, exec_user, "task_assigned") == []


def test_history_is_newest_first_with_actor_and_changes(api, db, exec_user):
    bob = make_user(db)
    todo, done = status(db, "todo"), status(db, "done")
    task = api.post("/api/tasks", as_=exec_user, json={"title": "Tracked", "status_id": todo.id}).json["task"]
    api.put(f"/api/tasks/{task['id']}", as_=exec_user, json={"status_id": done.id})
    api.put(f"/api/tasks/{task['id']}", as_=exec_user, json={"assignee_id": bob.id})
    api.put(f"/api/tasks/{task['id']}", as_=exec_user, json={"description": "no history for this"})
    response = api.get(f"/api/tasks/{task['id']}/history", as_=exec_user)
    assert response.status == 200
    history = response.json["history"]
    assert [h["action"] for h in history] == ["assigned", "status_changed", "created"]
    assert {(h["entity_type"], h["entity_id"], h["actor_id"], h["actor_name"]) for h in history} == {
        ("task", task["id"], exec_user.id, exec_user.name)}
    assert history[0]["changes"] == {"assignee_id": {"from": None, "to": bob.id}}
    assert history[2]["changes"] == {"title": "Tracked"}


def test_duplicate_missing_is_404(api, exec_user):
    assert api.post("/api/tasks/missing/duplicate", as_=exec_user).status == 404


def test_delete_needs_manage_and_removes_children(api, db, exec_user, employee):
    task = make_task(db, created_by=employee.id)
    child = make_task(db, parent_task_id=task.id)
    make_todo(db, task)
    assert api.delete(f"/api/tasks/{task.id}", as_=employee).status == 403
    response = api.delete(f"/api/tasks/{task.id}", as_=exec_user)
    assert response.status == 200 and response.json == {"ok": True}
    remaining = db.scalars(select(Task.id).where(Task.id.in_([task.id, child.id]))).all()
    assert remaining == []
    assert api.get(f"/api/tasks/{task.id}", as_=exec_user).status == 404
    assert api.delete(f"/api/tasks/{task.id}", as_=exec_user).status == 404


def test_history_of_missing_task_is_404(api, exec_user):
    assert api.get("/api/tasks/missing/history", as_=exec_user).status == 404


def test_numbers_must_be_finite_numbers(api, exec_user):
    for value in ("3", True, "NaN"):
        assert api.post("/api/tasks", as_=exec_user, json={"title": "x", "estimated_hours": value}).status == 400
    response = api.post("/api/tasks", as_=exec_user, body=b'{"title": "x", "sort_order": NaN}',
                        headers={"Content-Type": "application/json"})
    assert response.status == 400


def test_estimate_total_cost_must_be_a_json_number(api, exec_user):
    # docs/decisions/tasks.md: numbers must be JSON numbers (not strings, booleans or NaN)
    for value in ("12", "12.50", True):
        response = api.post("/api/tasks", as_=exec_user, json={"title": "x", "estimate_total_cost": value})
        assert response.status == 400, (value, response)
        assert response.json["details"][0]["field"] == "estimate_total_cost"
    created = api.post("/api/tasks", as_=exec_user, json={"title": "x", "estimate_total_cost": 12.5})
    assert created.status == 201 and created.json["task"]["estimate_total_cost"] == 12.5
    task_id = created.json["task"]["id"]
    assert api.put(f"/api/tasks/{task_id}", as_=exec_user, json={"estimate_total_cost": "3"}).status == 400


def test_assignee_sees_task_assigned_in_their_notifications(api, db, exec_user, employee):
    task = api.post("/api/tasks", as_=exec_user, json={"title": "Ship it", "assignee_id": employee.id}).json["task"]
    response = api.get("/api/notifications", as_=employee)
    assert response.status == 200
    mine = [n for n in response.json["notifications"] if n["type"] == "task_assigned"]
    assert len(mine) == 1 and mine[0]["resource_id"] == task["id"] and "Ship it" in mine[0]["title"]


def test_create_answers_the_record_a_read_gives_in_a_bounded_number_of_statements(api, db, exec_user,
                                                                                   count_queries, aws):
    """With the notifications queue configured (the deployment; in-process delivery is a development mode)."""
    assignee = make_user(db, name="Create Assignee")
    body = {"title": "Counted", "assignee_id": assignee.id, "priority_id": priority(db, "high").id,
            "due_date": "2026-12-01", "description": "d"}
    with count_queries() as counter:
        created = api.post("/api/tasks", as_=exec_user, json=body)
    assert created.status == 201
    # the caller; the referenced config items; the referenced users; the default status; the insert; history;
    # the notice (de-duplication, preferences, notification, delivery); names and labels of the answer (no
    # reload, no counts: was 13)
    assert counter.count <= 11, "\n".join(s[:90] for s in counter.statements)
    read = api.get(f"/api/tasks/{created.json['task']['id']}", as_=exec_user).json["task"]
    assert created.json["task"] == read


def test_a_put_that_sends_back_unchanged_references_is_taken(api, db, employee, exec_user):
    """A client that edits one field may send the whole record back: references it did not change are not
    checked again. An employee assigned a task in a project they are not a member of (so cannot see) got a 400
    on resource_id for sending the task's own project back; changing it to such a project is still a 400."""
    hidden = make_project(db, name="Not mine")
    other = make_project(db, name="Not mine either")
    task = make_task(db, title="Assigned to me", assignee_id=employee.id, resource_type="project",
                     resource_id=hidden.id)
    answer = api.put(f"/api/tasks/{task.id}", as_=employee, json={
        "title": "Renamed", "resource_type": "project", "resource_id": hidden.id, "assignee_id": employee.id})
    assert answer.status == 200, answer
    assert answer.json["task"]["title"] == "Renamed"
    moved = api.put(f"/api/tasks/{task.id}", as_=employee, json={"resource_type": "project", "resource_id": other.id})
    assert moved.status == 400 and moved.json["details"][0]["field"] == "resource_id"
