"""Session 32, audit "error bodies that name the wrong field": a todo whose assignee is no user is a 400 naming the
entry, `todos.<index>.assignee_id`, as the core names a list member's field and as the same route names an inactive
assignee; it named `todos.assignee_id`, no field of the body, so a client could not tell which todo was wrong."""
import uuid

from tests.areas.tasks.factories import make_task
from tests.factories import make_user


def test_an_unknown_assignee_names_its_todo(api, db, exec_user):
    task = make_task(db)
    active = make_user(db)
    answer = api.put(f"/api/tasks/{task.id}/todos", as_=exec_user, json={"todos": [
        {"title": "one", "assignee_id": active.id}, {"title": "two", "assignee_id": str(uuid.uuid4())},
        {"title": "three"}, {"title": "four", "assignee_id": str(uuid.uuid4())}]})
    assert answer.status == 400 and answer.json["details"] == [
        {"field": "todos.1.assignee_id", "message": "must be an existing user"},
        {"field": "todos.3.assignee_id", "message": "must be an existing user"}], answer.json
    gone = make_user(db, is_active=False)
    inactive = api.put(f"/api/tasks/{task.id}/todos", as_=exec_user, json={"todos": [
        {"title": "one"}, {"title": "two", "assignee_id": gone.id}]})
    assert inactive.status == 400 and inactive.json["details"] == [
        {"field": "todos.1.assignee_id", "message": "must be an active user"}], inactive.json
