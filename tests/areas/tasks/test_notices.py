"""Task notices (notifications audit): an assignment tells the assignee with a link to the task; document 3's
5-minute de-duplication (same user, type and resource) holds for a task handed back within minutes."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.factories import make_user


def _assigned(db, user) -> list[tuple]:
    db.expire_all()
    return db.execute(select(Notification.resource_id, Notification.action_url).where(
        Notification.user_id == user.id, Notification.type == "task_assigned")).all()


def test_an_assignment_tells_the_assignee_once_within_the_window(api, db, exec_user):
    ann, bob = make_user(db), make_user(db)
    task = api.post("/api/tasks", as_=exec_user, json={"title": "Write the brief", "assignee_id": ann.id}).json["task"]
    assert api.put(f"/api/tasks/{task['id']}", as_=exec_user, json={"assignee_id": bob.id}).status == 200
    assert api.put(f"/api/tasks/{task['id']}", as_=exec_user, json={"assignee_id": ann.id}).status == 200
    # each told, with the task's page; Ann's second assignment within 5 minutes is de-duplicated (document 3)
    assert _assigned(db, ann) == [(task["id"], f"/tasks/{task['id']}")]
    assert _assigned(db, bob) == [(task["id"], f"/tasks/{task['id']}")]
