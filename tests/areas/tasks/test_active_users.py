"""A deactivated user is given no new todo (references audit, follow-up); a duplicate copies every field (document 1)."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.tasks.factories import make_task, make_todo
from tests.factories import make_user


def test_a_duplicate_copies_the_assignee_even_when_deactivated(api, db, exec_user):
    """Document 1: a duplicate has "all other fields copied", the assignee too (session 18's review withdrew the
    unassigning of a deactivated assignee); core notify tells a deactivated user nothing."""
    leaving, staying = make_user(db), make_user(db)
    task = make_task(db, assignee_id=leaving.id)
    kept = make_task(db, assignee_id=staying.id)
    leaving.is_active = False
    db.flush()
    response = api.post(f"/api/tasks/{task.id}/duplicate", as_=exec_user)
    assert response.status == 201, response
    assert response.json["task"]["assignee_id"] == leaving.id
    assert not db.scalars(select(Notification).where(Notification.user_id == leaving.id)).all()
    response = api.post(f"/api/tasks/{kept.id}/duplicate", as_=exec_user)
    assert response.status == 201 and response.json["task"]["assignee_id"] == staying.id, response


def test_a_deactivated_user_cannot_be_given_a_todo(api, db, exec_user):
    gone = make_user(db, is_active=False)
    task = make_task(db)
    url = f"/api/tasks/{task.id}/todos"
    response = api.put(url, json={"todos": [{"title": "ok"}, {"title": "Call", "assignee_id": gone.id}]},
                       as_=exec_user)
    assert response.status == 400, response
    assert response.json["details"] == [{"field": "todos.1.assignee_id", "message": "must be an active user"}]

    todo = make_todo(db, task, title="Brief")
    response = api.put(url, json={"todos": [{"id": todo.id, "title": "Brief", "assignee_id": gone.id}]},
                       as_=exec_user)
    assert response.status == 400, response
    assert response.json["details"] == [{"field": "todos.0.assignee_id", "message": "must be an active user"}]


def test_a_todo_whose_assignee_was_deactivated_can_still_be_sent_back(api, db, exec_user):
    leaving = make_user(db)
    task = make_task(db)
    todo = make_todo(db, task, title="Handover", assignee_id=leaving.id)
    leaving.is_active = False
    db.flush()
    url = f"/api/tasks/{task.id}/todos"
    response = api.put(url, json={"todos": [{"id": todo.id, "title": "Handover notes", "assignee_id": leaving.id,
                                             "is_done": True}]}, as_=exec_user)
    assert response.status == 200, response
    assert response.json["todos"][0]["assignee_id"] == leaving.id and response.json["todos"][0]["is_done"] == 1
    # a new todo for them (even beside the kept one) is new work: refused
    response = api.put(url, json={"todos": [{"id": todo.id, "title": "Handover notes", "assignee_id": leaving.id},
                                            {"title": "More", "assignee_id": leaving.id}]}, as_=exec_user)
    assert response.status == 400, response
    assert response.json["details"] == [{"field": "todos.1.assignee_id", "message": "must be an active user"}]


def test_a_duplicate_copies_the_approval(api, db, exec_user):
    """Document 1: a duplicate has "all other fields copied"; approved_by_user_id and approved_at are task fields, so
    the copy carries them (session 18's review withdrew the exception an earlier commit had made)."""
    approver = make_user(db, access_level="executive")
    task = make_task(db, assignee_id=exec_user.id)
    approved = api.put(f"/api/tasks/{task.id}", as_=approver, json={"approved_by_user_id": approver.id,
                                                                      "approved_at": "2026-11-20T10:00:00Z"})
    assert approved.status == 200 and approved.json["task"]["approved_by_user_id"] == approver.id, approved
    copy = api.post(f"/api/tasks/{task.id}/duplicate", as_=exec_user)
    assert copy.status == 201, copy
    assert copy.json["task"]["approved_by_user_id"] == approver.id
    assert copy.json["task"]["approved_at"] == approved.json["task"]["approved_at"]
    assert copy.json["task"]["approved_by_name"] == approver.name
