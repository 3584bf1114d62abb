"""Task notices (notifications audit): each assignment is told, even one made back within minutes."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.factories import make_user


def _assigned(db, user) -> list[tuple]:
    db.expire_all()
    return db.execute(select(Notification.resource_id, Notification.action_url).where(
        Notification.user_id == user.id, Notification.type == "task_assigned")).all()


def test_a_task_handed_back_within_minutes_tells_its_assignee_again(api, db, exec_user):
    ann, bob = make_user(db), make_user(db)
    task = api.post("/api/tasks", as_=exec_user, json={"title": "Write the brief", "assignee_id": ann.id}).json["task"]
    assert api.put(f"/api/tasks/{task['id']}", as_=exec_user, json={"assignee_id": bob.id}).status == 200
    assert api.put(f"/api/tasks/{task['id']}", as_=exec_user, json={"assignee_id": ann.id}).status == 200
    # Ann was given the task twice: both told, each linking to the task's page
    assert _assigned(db, ann) == [(task["id"], f"/tasks/{task['id']}")] * 2
    assert _assigned(db, bob) == [(task["id"], f"/tasks/{task['id']}")]
    # a PUT that leaves the assignee as it is tells nobody
    assert api.put(f"/api/tasks/{task['id']}", as_=exec_user, json={"assignee_id": ann.id}).status == 200
    assert len(_assigned(db, ann)) == 2
