"""Session 31 (round 2, decided follow-ups): a time entry's task_id references tasks(id) ON DELETE SET NULL (migration
timesheets_0004). A task's delete (and its subtasks') left the entries logged on it naming a task that no longer
exists; the entries are kept, their hours and everything else as they were, no longer naming the task."""
import pytest

from tests.areas.tasks.factories import make_task
from tests.areas.timesheets.factories import make_entry


@pytest.fixture
def postgres(engine):
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite's tests run with foreign keys off")


def _entry(api, entry_id, user) -> dict:
    answer = api.get(f"/api/time-entries/{entry_id}", as_=user)
    assert answer.status == 200, answer
    return answer.json["time_entry"]


def test_a_task_s_delete_clears_it_on_the_entries_logged_on_it(api, db, exec_user, postgres):
    task = make_task(db, title="Build the footer", assignee_id=exec_user.id)
    made = api.post("/api/time-entries", as_=exec_user, json={"date": "2026-03-02", "hours": 3, "task_id": task.id,
                                                              "description": "footer"})
    assert made.status == 201, made
    entry_id = made.json["time_entry"]["id"]
    assert api.delete(f"/api/tasks/{task.id}", as_=exec_user).status == 200
    after = _entry(api, entry_id, exec_user)
    assert after["task_id"] is None
    assert (after["hours"], after["description"], after["date"]) == (3, "footer", "2026-03-02")  # the entry is kept
    assert api.get(f"/api/time-entries?task_id={task.id}", as_=exec_user).json["time_entries"] == []


def test_a_subtask_s_entries_are_cleared_with_its_parent_s_delete(api, db, exec_user, postgres):
    parent = make_task(db, title="Parent", assignee_id=exec_user.id)
    child = make_task(db, title="Child", parent_task_id=parent.id, assignee_id=exec_user.id)
    other = make_task(db, title="Other", assignee_id=exec_user.id)
    on_child, on_other = make_entry(db, exec_user, task_id=child.id), make_entry(db, exec_user, task_id=other.id)
    assert api.delete(f"/api/tasks/{parent.id}", as_=exec_user).status == 200
    assert _entry(api, on_child.id, exec_user)["task_id"] is None
    assert _entry(api, on_other.id, exec_user)["task_id"] == other.id  # another task's entries are untouched


def test_an_entry_on_a_task_is_still_written_and_read(api, db, exec_user):
    task = make_task(db, title="Kept", assignee_id=exec_user.id)
    made = api.post("/api/time-entries", as_=exec_user, json={"date": "2026-03-03", "hours": 1, "task_id": task.id})
    assert made.status == 201, made
    assert _entry(api, made.json["time_entry"]["id"], exec_user)["task_id"] == task.id
