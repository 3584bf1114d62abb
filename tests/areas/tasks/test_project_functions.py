"""The functions the projects area calls: project_tasks and task_counts_by_project."""
from chalicelib.core.schemas import PageQuery
from chalicelib.areas.tasks import service
from tests.areas.tasks.factories import make_task, priority, status
from tests.factories import make_user


def test_project_tasks_top_level_with_labels_in_order(db, count_queries):
    alice = make_user(db, name="Alice", picture="https://img/alice.png")
    todo, high = status(db, "todo"), priority(db, "high")
    late = make_task(db, title="late", resource_type="project", resource_id="p1", sort_order=2)
    first = make_task(db, title="first", resource_type="project", resource_id="p1", sort_order=1,
                      assignee_id=alice.id, status_id=todo.id, priority_id=high.id, due_date=None)
    make_task(db, title="child", resource_type="project", resource_id="p1", parent_task_id=first.id)
    make_task(db, title="other project", resource_type="project", resource_id="p2")
    make_task(db, title="not a project", resource_type="company", resource_id="p1")
    with count_queries() as counter:
        rows = service.project_tasks(db, "p1", PageQuery(), visible_to=None).items
    assert counter.count == 1
    assert [row["title"] for row in rows] == ["first", "late"]
    row = rows[0]
    assert row["id"] == first.id
    assert row["assignee_name"] == "Alice" and row["assignee_picture"] == "https://img/alice.png"
    assert (row["status_label"], row["status_value"], row["status_color"]) == (todo.label, "todo", todo.color)
    assert (row["priority_label"], row["priority_color"]) == (high.label, high.color)
    assert set(row) >= {"id", "title", "status_id", "priority_id", "assignee_id", "due_date", "sort_order",
                        "created_at"}
    assert rows[1]["id"] == late.id and rows[1]["assignee_name"] is None


def test_project_tasks_sorted_by_due_date_then_newest(db):
    from datetime import date, datetime, timezone

    a = make_task(db, title="no due", resource_type="project", resource_id="p9",
                  created_at=datetime(2026, 1, 3, tzinfo=timezone.utc))
    b = make_task(db, title="due later", resource_type="project", resource_id="p9", due_date=date(2026, 5, 2))
    c = make_task(db, title="due sooner", resource_type="project", resource_id="p9", due_date=date(2026, 5, 1))
    d = make_task(db, title="no due newer", resource_type="project", resource_id="p9",
                  created_at=datetime(2026, 1, 4, tzinfo=timezone.utc))
    rows = service.project_tasks(db, "p9", PageQuery(), visible_to=None).items
    assert [row["id"] for row in rows] == [c.id, b.id, d.id, a.id]
    assert rows[0]["due_date"] == "2026-05-01"


def test_project_task_counts_statement(db):
    parent = make_task(db, resource_type="project", resource_id="pa")
    make_task(db, resource_type="project", resource_id="pa")
    make_task(db, resource_type="project", resource_id="pa", parent_task_id=parent.id)
    make_task(db, resource_type="project", resource_id="pb")
    rows = db.execute(service.project_task_counts(lambda column: column.in_(["pa", "pb", "pc"]))).all()
    assert sorted(tuple(row) for row in rows) == [("pa", "tasks", 2), ("pb", "tasks", 1)]
