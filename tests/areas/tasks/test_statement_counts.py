"""Tasks: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The task list is tested in test_list.py."""
from chalicelib.areas.tasks.models import TaskResource
from chalicelib.core.locks import insert_rows
from chalicelib.core.models import HistoryEntry
from tests.factories import assert_constant, make_user

from .factories import add_watcher, make_task, make_todo, priority, status, task_type


def test_detail_subtasks_todos_and_watchers(api, db, exec_user, count_queries):
    task = make_task(db, assignee_id=exec_user.id)
    labels = {"status_id": status(db, "todo").id, "priority_id": priority(db, "high").id,
              "type_id": task_type(db, "bug").id}

    def grow(n):
        for _ in range(n):
            user = make_user(db)
            sub = make_task(db, parent_task_id=task.id, assignee_id=user.id, **labels)
            make_todo(db, sub)
            make_todo(db, task)
            add_watcher(db, task, user)

    def size(body):
        sizes = {len(body["subtasks"]), len(body["todos"]), len(body["watchers"])}
        return sizes.pop() if len(sizes) == 1 else -1

    body = assert_constant(api, count_queries, exec_user, f"/api/tasks/{task.id}", grow, size)
    assert all(s["assignee_name"] and s["status_label"] for s in body["subtasks"])


def test_subtasks(api, db, exec_user, count_queries):
    task = make_task(db)
    labels = {"status_id": status(db, "todo").id, "priority_id": priority(db, "high").id}

    def grow(n):
        for _ in range(n):
            sub = make_task(db, parent_task_id=task.id, assignee_id=make_user(db).id, reporter_id=exec_user.id,
                            **labels)
            make_todo(db, sub)
            make_task(db, parent_task_id=sub.id)

    body = assert_constant(api, count_queries, exec_user, f"/api/tasks/{task.id}/subtasks", grow,
                           lambda b: len(b["subtasks"]))
    assert all(s["assignee_name"] and s["todo_count"] == 1 and s["subtask_count"] == 1 for s in body["subtasks"])


def test_history(api, db, exec_user, count_queries):
    task = make_task(db)

    def grow(n):
        insert_rows(db, HistoryEntry, [{"entity_type": "task", "entity_id": task.id, "action": "updated",
                                        "actor_id": make_user(db).id, "changes": {"title": {"from": "a", "to": "b"}}}
                                       for _ in range(n)])

    body = assert_constant(api, count_queries, exec_user, f"/api/tasks/{task.id}/history", grow,
                           lambda b: len(b["history"]))
    assert all(h["actor_name"] for h in body["history"])


def test_resources(api, db, exec_user, count_queries):
    task = make_task(db)

    def grow(n):
        insert_rows(db, TaskResource, [{"task_id": task.id, "url": "https://example.com", "title": "Doc",
                                        "sort_order": i, "created_by": make_user(db).id} for i in range(n)])

    body = assert_constant(api, count_queries, exec_user, f"/api/tasks/{task.id}/resources", grow,
                           lambda b: len(b["resources"]))
    assert all(r["created_by_name"] for r in body["resources"])
