"""Session 23 (review): a note created while its record is deleted is not kept for good. Notes have no foreign key
to their record; a record's delete (notes.service.records_deleted) now takes the notes key of each record it deletes
(`notes:<type>:<id>`, the one a note create takes) before it deletes their notes, and a note create reads the record
after it holds that key: either the create goes first and the delete's DELETE sees its note, or the delete goes first
and the create finds the record gone (404). Before, the create read the record, then waited for the key, and
inserted after the delete had removed the record's notes: 201 and a note no route reaches."""
import secrets
import threading
import time

from sqlalchemy import func, select, text

from tests.concurrency.test_concurrency import TIMEOUT, _call, _token, executive, pytestmark  # noqa: F401


def _left(sessions, resource_type, resource_id) -> int:
    from chalicelib.areas.notes.models import Note

    with sessions() as db:
        return db.scalar(select(func.count()).select_from(Note).where(Note.resource_type == resource_type,
                                                                      Note.resource_id == resource_id))


def _task(sessions, user, parent_id=None) -> str:
    from tests.areas.tasks.factories import make_task

    with sessions() as db:
        task_id = make_task(db, created_by=user.id, title=f"t {secrets.token_hex(3)}", parent_task_id=parent_id).id
        db.commit()
    return task_id


def _in_thread(call, answers):
    thread = threading.Thread(target=lambda: answers.append(call()))
    thread.start()
    return thread


def test_a_note_created_as_its_task_is_deleted_goes_with_it(live):
    """The create first (it waits on its key, held elsewhere), then the delete: the delete waits for the create and
    deletes its note."""
    from chalicelib.areas.tasks.models import Task

    base, sessions = live
    user = executive(sessions)
    task_id = _task(sessions, user)
    token = _token(user)
    created, deleted = [], []
    with sessions() as other:
        other.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:k, 0))"), {"k": f"notes:task:{task_id}"})
        create = _in_thread(lambda: _call(base, "POST", f"/api/notes/task/{task_id}", token, {"content": "racing"}),
                            created)
        time.sleep(1.0)
        assert create.is_alive(), "the note create did not wait on its notes key"
        delete = _in_thread(lambda: _call(base, "DELETE", f"/api/tasks/{task_id}", token), deleted)
        time.sleep(1.0)
        other.commit()
    create.join(timeout=TIMEOUT)
    delete.join(timeout=TIMEOUT)
    assert deleted and deleted[0][0] == 200, deleted
    assert created and created[0][0] in (201, 404), created
    with sessions() as db:
        assert db.get(Task, task_id) is None
    left = _left(sessions, "task", task_id)
    assert left == 0, f"{left} note(s) kept on the deleted task {task_id} (create answered {created[0][0]})"


def test_a_note_created_while_its_task_is_deleted_is_404(live):
    """The delete first (it holds the notes key and waits on the task's row, held elsewhere), then the create: it
    waits for the delete, then finds the task gone."""
    base, sessions = live
    user = executive(sessions)
    task_id = _task(sessions, user)
    token = _token(user)
    created, deleted = [], []
    with sessions() as other:
        other.execute(text("SELECT id FROM tasks WHERE id = :i FOR UPDATE"), {"i": task_id})
        delete = _in_thread(lambda: _call(base, "DELETE", f"/api/tasks/{task_id}", token), deleted)
        time.sleep(1.0)
        assert delete.is_alive(), "the delete did not wait on the task's row"
        create = _in_thread(lambda: _call(base, "POST", f"/api/notes/task/{task_id}", token, {"content": "racing"}),
                            created)
        time.sleep(1.0)
        other.commit()
    delete.join(timeout=TIMEOUT)
    create.join(timeout=TIMEOUT)
    assert deleted and deleted[0][0] == 200, deleted
    left = _left(sessions, "task", task_id)
    assert left == 0, f"{left} note(s) kept on the deleted task {task_id} (create answered {created})"
    assert created and created[0][0] == 404, created


def test_a_note_on_a_subtask_created_as_its_parent_is_deleted_goes_with_it(live):
    """The subtasks of a deleted task (records_deleted given a SELECT of ids) are keyed as well."""
    from chalicelib.areas.tasks.models import Task

    base, sessions = live
    user = executive(sessions)
    parent_id = _task(sessions, user)
    child_id = _task(sessions, user, parent_id)
    token = _token(user)
    created, deleted = [], []
    with sessions() as other:
        other.execute(text("SELECT id FROM tasks WHERE id = :i FOR UPDATE"), {"i": parent_id})
        delete = _in_thread(lambda: _call(base, "DELETE", f"/api/tasks/{parent_id}", token), deleted)
        time.sleep(1.0)
        assert delete.is_alive(), "the delete did not wait on the task's row"
        create = _in_thread(lambda: _call(base, "POST", f"/api/notes/task/{child_id}", token, {"content": "racing"}),
                            created)
        time.sleep(1.0)
        other.commit()
    delete.join(timeout=TIMEOUT)
    create.join(timeout=TIMEOUT)
    assert deleted and deleted[0][0] == 200, deleted
    with sessions() as db:
        assert db.get(Task, child_id) is None
    left = _left(sessions, "task", child_id)
    assert left == 0, f"{left} note(s) kept on the deleted subtask {child_id} (create answered {created})"
    assert created and created[0][0] == 404, created
