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


def test_the_time_of_an_approval_is_the_approvers_own(api, db):
    """`approved_at` is the other half of the approval: an employee moved the time an executive approved, or
    recorded an approval time with no approver. Set or changed only when the approver after the write is the
    caller (the same 403); the stored time sent back, and the whole approval withdrawn, stay allowed."""
    employee = make_user(db)
    boss = make_user(db, access_level="executive")
    task = make_task(db, title="Launch", created_by=employee.id, assignee_id=employee.id)
    path = f"/api/tasks/{task.id}"
    given = api.put(path, as_=boss, json={"approved_by_user_id": boss.id, "approved_at": "2026-01-02T03:04:05Z"})
    assert given.status == 200, given
    stored = given.json["task"]["approved_at"]
    for body in ({"approved_at": "2025-06-01T00:00:00Z"}, {"approved_at": None},
                 {"approved_by_user_id": boss.id, "approved_at": "2025-06-01T00:00:00Z"}):
        answer = api.put(path, as_=employee, json=body)
        assert answer.status == 403, (body, answer)
    read = api.get(path, as_=employee).json["task"]
    assert (read["approved_by_user_id"], read["approved_at"]) == (boss.id, stored)
    # the record sent back as read is no change
    assert api.put(path, as_=employee, json={"title": "Launch v2", "approved_by_user_id": boss.id,
                                             "approved_at": stored}).status == 200
    # withdrawn together: anyone who may update the task (null clears it)
    cleared = api.put(path, as_=employee, json={"approved_by_user_id": None, "approved_at": None})
    assert cleared.status == 200 and cleared.json["task"]["approved_at"] is None, cleared
    # a time with no approver, on an update or a create
    assert api.put(path, as_=employee, json={"approved_at": "2026-02-01T00:00:00Z"}).status == 403
    assert api.post("/api/tasks", as_=employee, json={"title": "Other", "approved_at": "2026-02-01T00:00:00Z"}
                    ).status == 403
    # one's own approval with its time
    own = api.put(path, as_=employee, json={"approved_by_user_id": employee.id, "approved_at": "2026-02-01T00:00:00Z"})
    assert own.status == 200 and own.json["task"]["approved_at"].startswith("2026-02-01"), own
    assert api.get(path, as_=employee).json["task"]["approved_at"].startswith("2026-02-01")
