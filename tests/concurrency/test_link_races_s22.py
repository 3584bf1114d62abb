"""Writes naming a record of another area raced by that record's delete (session 22), against a real HTTP server on
Postgres (the server and helpers of test_concurrency.py).

A write naming a row share-locks it (FOR KEY SHARE) when it checks it; the row's delete locks it FOR UPDATE first,
then clears the references to it, then deletes it. Whichever comes first, nothing is left naming a deleted row:
- a time entry's budget and line item (timesheets' checks through budgets' `visible_budget_exists`,
  `line_item_budget`), against DELETE of the budget or of the line item;
- a task's roadmap item (tasks' check through roadmaps' `visible_item_exists`), against DELETE of the item or of
  its roadmap; a task moved between two items of a roadmap being deleted meets no deadlock (no 409);
- root positions: a page delete moving its children to the root takes the root sibling group's key, as a root
  create does, so concurrent deletes and creates hand out distinct positions.
"""
from __future__ import annotations

import threading
import time
from collections import Counter
from datetime import date

from sqlalchemy import select, text

from tests.concurrency.test_concurrency import TIMEOUT, _all_at_once, _call, _token, executive, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there

WAIT = 1.0


def _started(fn):
    """`fn` run in a thread: (thread, answers) - answers gets its result, or the exception it raised."""
    answers = []

    def run():
        try:
            answers.append(fn())
        except Exception as exc:  # noqa: BLE001 - the test checks what it got
            answers.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, answers


def _finished(thread, answers):
    thread.join(timeout=TIMEOUT * 2)
    assert answers, "the request did not finish"
    assert not isinstance(answers[0], Exception), answers[0]
    return answers[0]


def _day_key(user_id: str, day: str) -> str:
    return f"time-entries-day:{user_id}:{day}"


def _hold_day_key(other, user_id: str, day: str) -> None:
    """The advisory key timesheets' day check takes (`_check_day`), held by `other` until it commits."""
    other.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:k, 0))"), {"k": _day_key(user_id, day)})


def _budget_with_item(sessions):
    from tests.areas.budgets.factories import make_budget, make_line_item

    with sessions() as db:
        budget = make_budget(db)
        item = make_line_item(db, budget)
        db.commit()
    return budget, item


def _entries_naming(sessions, column, value) -> list[str]:
    from chalicelib.areas.timesheets.models import TimeEntry

    with sessions() as db:
        return list(db.scalars(select(TimeEntry.id).where(getattr(TimeEntry, column) == value)))


# ---------------------------------------------------------------- time entries: budget and line item

def test_time_entry_made_while_its_budget_is_deleted_names_no_deleted_budget(live):
    """The create checks the budget, then waits on its day's key (held here); a delete of the budget then waits for
    the create (its row share-locked), clears the new entry's budget and deletes it. It used to run through at once,
    and the entry was then written naming the deleted budget."""
    from chalicelib.areas.budgets.models import Budget

    base, sessions = live
    boss = executive(sessions)
    token = _token(boss)
    budget, item = _budget_with_item(sessions)
    day = "2031-02-03"
    with sessions() as other:
        _hold_day_key(other, boss.id, day)
        create = _started(lambda: _call(base, "POST", "/api/time-entries", token,
                                        {"date": day, "hours": 2, "budget_id": budget.id, "line_item_id": item.id}))
        time.sleep(WAIT)
        assert create[0].is_alive(), "the create did not wait on the day key"
        delete = _started(lambda: _call(base, "DELETE", f"/api/budgets/{budget.id}", token))
        time.sleep(WAIT)
        other.commit()
    created, deleted = _finished(*create), _finished(*delete)
    assert created[0] == 201, created
    assert deleted[0] in (200, 204), deleted
    with sessions() as db:
        assert db.get(Budget, budget.id) is None
    assert _entries_naming(sessions, "budget_id", budget.id) == []
    assert _entries_naming(sessions, "line_item_id", item.id) == []


def test_time_entry_made_while_its_line_item_is_deleted_names_no_deleted_line_item(live):
    """As above for DELETE of the line item: it waits for the create (the budget and the item share-locked), then
    clears the new entry's line item (the entry keeps the budget)."""
    from chalicelib.areas.budgets.models import BudgetLineItem

    base, sessions = live
    boss = executive(sessions)
    token = _token(boss)
    budget, item = _budget_with_item(sessions)
    day = "2031-02-04"
    with sessions() as other:
        _hold_day_key(other, boss.id, day)
        create = _started(lambda: _call(base, "POST", "/api/time-entries", token,
                                        {"date": day, "hours": 2, "budget_id": budget.id, "line_item_id": item.id}))
        time.sleep(WAIT)
        assert create[0].is_alive(), "the create did not wait on the day key"
        delete = _started(lambda: _call(base, "DELETE", f"/api/budgets/{budget.id}/line-items/{item.id}", token))
        time.sleep(WAIT)
        other.commit()
    created, deleted = _finished(*create), _finished(*delete)
    assert created[0] == 201, created
    assert deleted[0] in (200, 204), deleted
    with sessions() as db:
        assert db.get(BudgetLineItem, item.id) is None
    assert _entries_naming(sessions, "line_item_id", item.id) == []
    assert _entries_naming(sessions, "budget_id", budget.id) == [created[1]["time_entry"]["id"]]


def test_time_entry_moved_to_a_line_item_being_deleted_names_no_deleted_line_item(live):
    """A PUT moving an entry to another line item of its budget (and changing its hours: the day's key, held here)
    share-locks the new item; the item's delete waits for it and then clears it. The delete used to find no entry
    naming the item (the entry named the other one), and the PUT then wrote the deleted item's id."""
    from tests.areas.budgets.factories import make_line_item
    from tests.areas.timesheets.factories import make_entry

    base, sessions = live
    boss = executive(sessions)
    token = _token(boss)
    budget, first = _budget_with_item(sessions)
    day = "2031-02-05"
    with sessions() as db:
        second = make_line_item(db, budget)
        entry = make_entry(db, boss, date=date.fromisoformat(day), hours=1,
                           budget_id=budget.id, line_item_id=first.id)
        db.commit()
    with sessions() as other:
        _hold_day_key(other, boss.id, day)
        update = _started(lambda: _call(base, "PUT", f"/api/time-entries/{entry.id}", token,
                                        {"hours": 3, "line_item_id": second.id}))
        time.sleep(WAIT)
        assert update[0].is_alive(), "the update did not wait on the day key"
        delete = _started(lambda: _call(base, "DELETE", f"/api/budgets/{budget.id}/line-items/{second.id}", token))
        time.sleep(WAIT)
        other.commit()
    updated, deleted = _finished(*update), _finished(*delete)
    assert updated[0] == 200, updated
    assert deleted[0] in (200, 204), deleted
    assert _entries_naming(sessions, "line_item_id", second.id) == []


# ---------------------------------------------------------------- tasks: roadmap item

def _roadmap(sessions, items: int = 1):
    from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
    from tests.areas.projects.factories import make_project

    with sessions() as db:
        project = make_project(db)
        roadmap = Roadmap(name="R", project_id=project.id)
        db.add(roadmap)
        db.flush()
        rows = [RoadmapItem(roadmap_id=roadmap.id, title=f"I{n}", position=n) for n in range(items)]
        db.add_all(rows)
        db.commit()
    return roadmap, rows


def _tasks_naming(sessions, item_ids) -> list[str]:
    from chalicelib.areas.tasks.models import Task

    with sessions() as db:
        return list(db.scalars(select(Task.id).where(Task.roadmap_item_id.in_(list(item_ids)))))


def _task_made_while_deleted(live, path):
    """Another transaction share-locks the item (as a task write naming it does); the delete (`path`) starts and
    waits on it; a task naming the item is then created; the other transaction commits."""
    from chalicelib.areas.roadmaps.models import RoadmapItem

    base, sessions = live
    token = _token(executive(sessions))
    roadmap, (item,) = _roadmap(sessions)
    with sessions() as other:
        other.execute(text("SELECT id FROM roadmap_items WHERE id = :id FOR KEY SHARE"), {"id": item.id})
        delete = _started(lambda: _call(base, "DELETE", path(roadmap, item), token))
        time.sleep(WAIT)
        assert delete[0].is_alive(), "the delete did not wait"
        create = _started(lambda: _call(base, "POST", "/api/tasks", token, {"title": "T", "roadmap_item_id": item.id}))
        time.sleep(WAIT)
        other.commit()
    deleted, created = _finished(*delete), _finished(*create)
    assert deleted[0] in (200, 204), deleted
    assert created[0] in (201, 400), created  # made before the delete (then unlinked by it), or refused after it
    with sessions() as db:
        assert db.get(RoadmapItem, item.id) is None
    assert _tasks_naming(sessions, [item.id]) == [], f"create {created[0]}: a task names deleted item {item.id}"


def test_task_made_while_its_roadmap_item_is_deleted_names_no_deleted_item(live):
    """The item's delete cleared the tasks naming it first and locked the item only at its DELETE: a task created
    meanwhile passed the check (a plain SELECT) and kept the deleted item's id."""
    _task_made_while_deleted(live, lambda roadmap, item: f"/api/roadmaps/{roadmap.id}/items/{item.id}")


def test_task_made_while_its_roadmap_is_deleted_names_no_deleted_item(live):
    _task_made_while_deleted(live, lambda roadmap, item: f"/api/roadmaps/{roadmap.id}")


def test_task_moved_between_items_of_a_roadmap_being_deleted_meets_no_deadlock(live):
    """A task naming item A is moved to item B of the same roadmap (its row locked first, then B share-locked) while
    the roadmap is deleted: the delete must not hold B while it waits for the task's row (each would wait for the
    other: a deadlock, 409). The task's update is held here between its two locks (it also links a project, whose
    row is held FOR UPDATE here)."""
    from chalicelib.areas.roadmaps.models import Roadmap
    from chalicelib.areas.tasks.models import Task
    from tests.areas.projects.factories import make_project

    base, sessions = live
    token = _token(executive(sessions))
    roadmap, (first, second) = _roadmap(sessions, items=2)
    with sessions() as db:
        project = make_project(db)
        task = Task(title="T", roadmap_item_id=first.id)
        db.add(task)
        db.commit()
    with sessions() as other:
        other.execute(text("SELECT id FROM projects WHERE id = :id FOR UPDATE"), {"id": project.id})
        update = _started(lambda: _call(base, "PUT", f"/api/tasks/{task.id}", token,
                                        {"roadmap_item_id": second.id, "resource_type": "project",
                                         "resource_id": project.id}))
        time.sleep(WAIT)
        assert update[0].is_alive(), "the update did not wait on the project"
        delete = _started(lambda: _call(base, "DELETE", f"/api/roadmaps/{roadmap.id}", token))
        time.sleep(WAIT)
        other.commit()
    updated, deleted = _finished(*update), _finished(*delete)
    assert updated[0] == 200, updated
    assert deleted[0] in (200, 204), deleted
    with sessions() as db:
        assert db.get(Roadmap, roadmap.id) is None
        assert db.get(Task, task.id).roadmap_item_id is None
    assert _tasks_naming(sessions, [first.id, second.id]) == []


# ---------------------------------------------------------------- pages: root positions

def test_page_delete_waits_for_the_root_sibling_key(live):
    """The key `_next_position` takes for the root pages (held here): a delete moving children to the root reads
    the highest root position only once it holds it. It used to read it at once."""
    from tests.areas.pages.factories import make_page

    base, sessions = live
    token = _token(executive(sessions))
    with sessions() as db:
        parent = make_page(db)
        make_page(db, parent_id=parent.id)
        db.commit()
    answer = while_held(sessions, lambda db: db.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:k, 0))"),
                                                        {"k": "pages:::"}),
                        lambda: _call(base, "DELETE", f"/api/pages/{parent.id}", token))
    assert answer[0] in (200, 204), answer


def test_page_deletes_and_root_creates_at_once_give_distinct_root_positions(live):
    from chalicelib.areas.pages.models import Page
    from tests.areas.pages.factories import make_page

    base, sessions = live
    token = _token(executive(sessions))
    n = 10
    with sessions() as db:
        parents = [make_page(db) for _ in range(n)]
        children = [make_page(db, parent_id=p.id) for p in parents]
        db.commit()
    calls = [(lambda p=p: _call(base, "DELETE", f"/api/pages/{p.id}", token)) for p in parents]
    calls += [(lambda i=i: _call(base, "POST", "/api/pages", token, {"title": f"root {i}"})) for i in range(n)]
    results = _all_at_once(calls)
    assert {s for s, _ in results} <= {200, 201, 204}, results
    created = [b["page"]["id"] for _, b in results[n:]]
    with sessions() as db:
        rows = db.execute(select(Page.id, Page.parent_id, Page.position).where(
            Page.id.in_([c.id for c in children] + created))).all()
    assert all(parent_id is None for _, parent_id, _ in rows), rows
    dup = {p: k for p, k in Counter(position for _, _, position in rows).items() if k > 1}
    assert not dup, f"root positions taken more than once (position: count): {dup}"
