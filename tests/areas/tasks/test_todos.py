"""PUT /api/tasks/:id/todos replaces the checklist."""
import uuid

from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.tasks.factories import make_task, make_todo
from tests.factories import make_user


def todo_notes(db, user):
    return db.scalars(select(Notification).where(Notification.user_id == user.id,
                                                 Notification.type == "todo_assigned")).all()


def test_replace_creates_upserts_and_deletes(api, db, exec_user):
    bob = make_user(db, name="Bob", picture="https://img/b.png")
    task = make_task(db)
    keep = make_todo(db, task, title="keep", position=0)
    drop = make_todo(db, task, title="drop", position=1)
    chosen = str(uuid.uuid4())  # a client-chosen id of a new todo is a UUID (decisions.md section 4)
    response = api.put(f"/api/tasks/{task.id}/todos", as_=exec_user, json={"todos": [
        {"id": keep.id, "title": "kept and renamed", "is_done": True, "position": 5},
        {"title": "new one", "is_done": False, "position": 1, "assignee_id": bob.id, "due_date": "2026-04-01"},
        {"id": chosen, "title": "upserted new", "is_done": False, "position": 9},
    ]})
    assert response.status == 200, response
    todos = response.json["todos"]
    assert [t["title"] for t in todos] == ["new one", "kept and renamed", "upserted new"]
    assert todos[1]["id"] == keep.id and todos[1]["is_done"] == 1 and todos[1]["position"] == 5
    assert todos[0]["assignee_name"] == "Bob" and todos[0]["assignee_picture"] == "https://img/b.png"
    assert todos[0]["due_date"] == "2026-04-01" and todos[0]["is_done"] == 0 and todos[0]["task_id"] == task.id
    assert todos[2]["id"] == chosen
    assert drop.id not in {t["id"] for t in todos}
    detail = api.get(f"/api/tasks/{task.id}", as_=exec_user).json
    assert [t["id"] for t in detail["todos"]] == [t["id"] for t in todos]
    assert (detail["task"]["todo_count"], detail["task"]["todo_done_count"]) == (3, 1)


def test_empty_list_deletes_all(api, db, exec_user):
    task = make_task(db)
    make_todo(db, task)
    response = api.put(f"/api/tasks/{task.id}/todos", as_=exec_user, json={"todos": []})
    assert response.status == 200 and response.json == {"todos": []}


def test_position_defaults_to_index(api, db, exec_user):
    task = make_task(db)
    todos = api.put(f"/api/tasks/{task.id}/todos", as_=exec_user,
                    json={"todos": [{"title": "a"}, {"title": "b"}]}).json["todos"]
    assert [(t["title"], t["position"]) for t in todos] == [("a", 0), ("b", 1)]


def test_todo_validation_is_400(api, db, exec_user):
    task, other = make_task(db), make_task(db)
    foreign = make_todo(db, other)
    url = f"/api/tasks/{task.id}/todos"
    assert api.put(url, as_=exec_user, json={}).status == 400
    assert api.put(url, as_=exec_user, json={"todos": [{"title": ""}]}).status == 400
    assert api.put(url, as_=exec_user, json={"todos": [{"title": "x", "is_done": "yes"}]}).status == 400
    assert api.put(url, as_=exec_user, json={"todos": [{"title": "x", "due_date": "tomorrow"}]}).status == 400
    assert api.put(url, as_=exec_user, json={"todos": [{"title": "x", "assignee_id": "ghost"}]}).status == 400
    assert api.put(url, as_=exec_user, json={"todos": [{"id": foreign.id, "title": "steal"}]}).status == 400
    assert api.put(url, as_=exec_user, json={"todos": [{"id": "a", "title": "1"}, {"id": "a", "title": "2"}]}).status == 400


def test_todos_of_missing_task_is_404(api, exec_user):
    assert api.put("/api/tasks/missing/todos", as_=exec_user, json={"todos": []}).status == 404


def test_todos_need_tasks_update(api, db):
    from tests.factories import grant

    viewer = make_user(db)
    grant(db, viewer, "tasks", "view")
    task = make_task(db, created_by=viewer.id)
    assert api.put(f"/api/tasks/{task.id}/todos", as_=viewer, json={"todos": []}).status == 403


def test_todo_assigned_goes_to_newly_assigned_other_users_only(api, db, exec_user):
    bob, carol = make_user(db), make_user(db)
    task = make_task(db)
    existing = make_todo(db, task, assignee_id=carol.id)
    api.put(f"/api/tasks/{task.id}/todos", as_=exec_user, json={"todos": [
        {"id": existing.id, "title": "still carol's", "assignee_id": carol.id},
        {"title": "for bob", "assignee_id": bob.id},
        {"title": "for me", "assignee_id": exec_user.id},
    ]})
    assert len(todo_notes(db, bob)) == 1
    assert todo_notes(db, bob)[0].resource_id == task.id
    assert todo_notes(db, carol) == []
    assert todo_notes(db, exec_user) == []
    api.put(f"/api/tasks/{task.id}/todos", as_=exec_user, json={"todos": [
        {"id": existing.id, "title": "now bob's", "assignee_id": bob.id}]})
    dave = make_user(db)
    api.put(f"/api/tasks/{task.id}/todos", as_=exec_user, json={"todos": [
        {"id": existing.id, "title": "now dave's", "assignee_id": dave.id}]})
    assert len(todo_notes(db, dave)) == 1


def test_a_new_todo_takes_a_client_id_only_when_it_is_a_uuid(api, db, exec_user):
    """decisions.md section 4: identifiers are UUID strings. An entry whose id names no todo yet is upserted
    with that id only when it is a UUID (canonical, lower case); another id is a 400 naming the entry, and
    nothing is written. An id of one of the task's own todos is matched as it is."""
    task = make_task(db)
    legacy = make_todo(db, task, id="legacy-todo-id", title="legacy")
    url = f"/api/tasks/{task.id}/todos"
    for bad in ("client-chosen-id", "a", str(uuid.uuid4()).upper(), uuid.uuid4().hex):
        response = api.put(url, as_=exec_user, json={"todos": [{"id": legacy.id, "title": "legacy"},
                                                               {"id": bad, "title": "new"}]})
        assert response.status == 400, (bad, response)
        assert response.json["details"] == [{"field": "todos.1.id", "message": "must be a UUID (lower case)"}]
    assert [t["id"] for t in api.get(f"/api/tasks/{task.id}", as_=exec_user).json["todos"]] == [legacy.id]
    chosen = str(uuid.uuid4())
    response = api.put(url, as_=exec_user, json={"todos": [{"id": legacy.id, "title": "legacy kept"},
                                                           {"id": chosen, "title": "new"}]})
    assert response.status == 200, response
    assert [(t["id"], t["title"]) for t in response.json["todos"]] == [(legacy.id, "legacy kept"), (chosen, "new")]


def test_a_refused_todo_id_is_named_in_details(api, db, exec_user):
    """decisions.md section 4: a validation error adds details [{field, message}]."""
    task, other = make_task(db), make_task(db)
    foreign = make_todo(db, other)
    url = f"/api/tasks/{task.id}/todos"
    twice = str(uuid.uuid4())
    response = api.put(url, as_=exec_user, json={"todos": [{"id": twice, "title": "1"}, {"id": twice, "title": "2"}]})
    assert response.status == 400 and response.json["details"] == [
        {"field": "todos.1.id", "message": "names the same todo as an earlier entry"}], response
    response = api.put(url, as_=exec_user, json={"todos": [{"title": "mine"}, {"id": foreign.id, "title": "steal"}]})
    assert response.status == 400 and response.json["details"] == [
        {"field": "todos.1.id", "message": "is a todo of another task"}], response
