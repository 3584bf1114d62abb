"""Lock orders of session 22's fixes, checked by its review (against a real HTTP server on Postgres): a delete and a
write of a row it clears take their locks in one order, so neither meets the other in a deadlock (a 409).

- A project's delete clears its roadmap items' tasks before it deletes the items (roadmaps.project_deleted, as
  delete_roadmap): a task update moving the task between two items of the project holds the task's row and then
  share-locks the new item; the delete used to hold the items and then wait for the task's row.
- A page's update takes the keys of its move before it sets any field (pages.update_page): a child moved to the root
  with its title changed used to flush (lock) its row at the key's statement, while its parent's delete held the root
  siblings' key and waited for the child's row.
"""
from __future__ import annotations

import threading
import time

from sqlalchemy import func, select

from tests.concurrency.test_concurrency import _call, _token, executive
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def _key(parts):
    return ":".join("" if p is None else str(p) for p in parts)


def _two_behind_key(sessions, key, first, second, gap=0.7):
    """Hold the advisory key `key`; start `first` (which queues on the key), then `second`; then release."""
    answers = {}

    def run(name, call):
        try:
            answers[name] = call()
        except Exception as exc:  # noqa: BLE001
            answers[name] = exc

    with sessions() as other:
        other.execute(select(func.pg_advisory_xact_lock(func.hashtextextended(key, 0))))
        a = threading.Thread(target=run, args=("first", first))
        a.start()
        time.sleep(gap)
        b = threading.Thread(target=run, args=("second", second))
        b.start()
        time.sleep(gap)
        other.commit()
    a.join(30)
    b.join(30)
    return answers


def test_a_page_delete_and_its_child_moved_to_the_root_with_a_new_title_meet_no_deadlock(live):
    """delete_page: root key, then the children's rows (update_rows). update_page of a child with a title and
    parent_id null: autoflush writes the child's row at _next_position's lock_key, then waits for the key."""
    from tests.areas.pages.factories import make_page

    base, sessions = live
    token = _token(executive(sessions))
    with sessions() as db:
        parent = make_page(db)
        child = make_page(db, parent_id=parent.id)
        db.commit()
    answers = _two_behind_key(
        sessions, _key(("pages", None, None, None)),
        lambda: _call(base, "DELETE", f"/api/pages/{parent.id}", token),
        lambda: _call(base, "PATCH", f"/api/pages/{child.id}", token, {"title": "Renamed", "parent_id": None}))
    assert answers["first"][0] in (200, 204) and answers["second"][0] == 200, answers


def _two_behind_hold(sessions, hold, first, second, gap=0.8):
    """Another transaction runs `hold(session)`; start `first`, then `second`; then that transaction ends."""
    answers = {}

    def run(name, call):
        try:
            answers[name] = call()
        except Exception as exc:  # noqa: BLE001
            answers[name] = exc

    with sessions() as other:
        hold(other)
        a = threading.Thread(target=run, args=("first", first))
        a.start()
        time.sleep(gap)
        b = threading.Thread(target=run, args=("second", second))
        b.start()
        time.sleep(gap)
        other.commit()
    a.join(30)
    b.join(30)
    return answers


def test_a_project_delete_and_a_task_moved_between_its_roadmap_items_meet_no_deadlock(live):
    """Task update: the task's row, then (new) FOR KEY SHARE on the roadmap item it names anew. Project delete:
    roadmaps.project_deleted DELETEs the items first (their rows), then clears the tasks naming them (the task's
    row). The task's update is held between the two (by a project it links, locked elsewhere) to order them."""
    from chalicelib.areas.projects.models import Project
    from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
    from tests.areas.projects.factories import make_project
    from tests.areas.tasks.factories import make_task

    base, sessions = live
    token = _token(executive(sessions))
    with sessions() as db:
        doomed, other_project = make_project(db), make_project(db)
        roadmap = Roadmap(name="Plan", project_id=doomed.id)
        db.add(roadmap)
        db.flush()
        one, two = RoadmapItem(roadmap_id=roadmap.id, title="One"), RoadmapItem(roadmap_id=roadmap.id, title="Two")
        db.add_all([one, two])
        db.flush()
        task = make_task(db, roadmap_item_id=one.id)
        db.commit()

    def hold(other):
        other.execute(select(Project.id).where(Project.id == other_project.id).with_for_update())

    answers = _two_behind_hold(
        sessions, hold,
        lambda: _call(base, "PUT", f"/api/tasks/{task.id}", token,
                      {"resource_type": "project", "resource_id": other_project.id, "roadmap_item_id": two.id}),
        lambda: _call(base, "DELETE", f"/api/projects/{doomed.id}", token))
    assert answers["second"][0] in (200, 204), answers
    assert answers["first"][0] in (200, 400), answers
