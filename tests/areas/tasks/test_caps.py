"""Every list is capped (decisions.md section 4): a task's checklist holds at most 500 todos."""
from tests.areas.tasks.factories import make_task


def test_todo_replacement_over_the_cap_is_400_and_writes_nothing(api, db, exec_user):
    task = make_task(db)
    too_many = [{"title": f"todo {n}"} for n in range(501)]
    response = api.put(f"/api/tasks/{task.id}/todos", as_=exec_user, json={"todos": too_many})
    assert response.status == 400, response
    assert response.json["details"][0]["field"].startswith("todos")
    assert api.get(f"/api/tasks/{task.id}", as_=exec_user).json["todos"] == []


def test_todo_replacement_at_the_cap_is_accepted(api, db, exec_user):
    task = make_task(db)
    response = api.put(f"/api/tasks/{task.id}/todos", as_=exec_user,
                       json={"todos": [{"title": f"todo {n}"} for n in range(500)]})
    assert response.status == 200, response
    assert len(response.json["todos"]) == 500
