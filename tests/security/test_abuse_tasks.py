"""Acting as someone else in tasks (security audit S5): a forged approval.

`approved_by_user_id` (document 1: updatable) records who approved a task; it is shown as `approved_by_name`.
Any holder of tasks:update (an employee by default) who sees a task could name anyone there, e.g. an
executive, and the task then read as approved by that executive who never did. A caller records their own
approval only; clearing it, and re-sending the stored value unchanged, stay allowed."""
from tests.areas.tasks.factories import make_task
from tests.factories import make_user


def test_an_employee_cannot_record_an_executives_approval(api, db):
    employee = make_user(db)
    boss = make_user(db, access_level="executive", name="Erin Exec")
    task = make_task(db, title="Launch", created_by=employee.id, assignee_id=employee.id)
    answer = api.put(f"/api/tasks/{task.id}", as_=employee,
                     json={"approved_by_user_id": boss.id, "approved_at": "2026-01-02T03:04:05Z"})
    assert answer.status == 403, answer
    assert api.get(f"/api/tasks/{task.id}", as_=employee).json["task"]["approved_by_user_id"] is None
    created = api.post("/api/tasks", as_=employee, json={"title": "Other", "approved_by_user_id": boss.id})
    assert created.status == 403, created


def test_a_caller_records_their_own_approval_and_keeps_a_stored_one(api, db):
    employee = make_user(db)
    boss = make_user(db, access_level="executive")
    task = make_task(db, title="Launch", created_by=employee.id, assignee_id=employee.id)
    path = f"/api/tasks/{task.id}"
    assert api.put(path, as_=boss, json={"approved_by_user_id": boss.id}).status == 200
    # the employee PUTs back the record they read: the stored approver is unchanged, not re-checked
    assert api.put(path, as_=employee, json={"title": "Launch v2", "approved_by_user_id": boss.id}).status == 200
    assert api.put(path, as_=employee, json={"approved_by_user_id": employee.id}).status == 200
    assert api.put(path, as_=employee, json={"approved_by_user_id": None}).status == 200
