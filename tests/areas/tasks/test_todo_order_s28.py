"""New todos sent with one position keep the order they were sent in (session 28's ties audit): every new todo of one
PUT /api/tasks/:id/todos was written with one created_at (the request's), so todos of equal position were ordered by
their random ids; each is now an instant apart in the order sent."""
from tests.areas.tasks.factories import make_task


def test_todos_sent_with_one_position_keep_the_order_they_were_sent_in(api, db, exec_user):
    task = make_task(db)
    sent = [f"step {n}" for n in range(8)]
    answer = api.put(f"/api/tasks/{task.id}/todos", as_=exec_user,
                     json={"todos": [{"title": title, "is_done": False, "position": 0} for title in sent]})
    assert answer.status == 200, answer
    assert [t["title"] for t in answer.json["todos"]] == sent
    detail = api.get(f"/api/tasks/{task.id}", as_=exec_user).json
    assert [t["title"] for t in detail["todos"]] == sent
