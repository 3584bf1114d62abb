"""Session 29, code no test ran (coverage audit): an update that blanks a task's title."""
from chalicelib.areas.tasks.models import Task
from tests.areas.tasks.factories import make_task


def test_an_update_to_a_blank_title_is_a_400_naming_it(api, db, exec_user):
    task = make_task(db, title="Keep me", created_by=exec_user.id)
    for title in ("", "   ", "\t\n"):
        answer = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"title": title})
        assert answer.status == 400, (title, answer)
        assert answer.json["details"][0]["field"] == "title"
    db.expire_all()
    assert db.get(Task, task.id).title == "Keep me"
    trimmed = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"title": "  Renamed  "})
    assert trimmed.status == 200 and trimmed.json["task"]["title"] == "Renamed", trimmed
