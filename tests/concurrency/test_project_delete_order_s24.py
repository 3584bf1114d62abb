"""A project's delete takes its roadmap items before its sprints (session 24's review), the order in which a task create
or duplicate share-locks a roadmap item and then a sprint (tasks' check_references / copied_links), so the two never
wait for each other crosswise. Against a real HTTP server on Postgres (the server and helpers of test_concurrency.py).

The probe: another transaction holds the roadmap item share-locked (a create past its first lock); the delete must be
waiting on that item with the sprint still untouched, so that the create's next lock (the sprint) is free. Deleting the
sprints first, the delete held the sprint while it waited on the item: the create then waited on the sprint, a
deadlock (one of them answered 409)."""
from __future__ import annotations

import threading
import time

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from tests.concurrency.test_concurrency import TIMEOUT, _call, _make, _token, executive
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_a_project_delete_waiting_on_a_roadmap_item_has_not_taken_its_sprints(live):
    from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
    from chalicelib.areas.sprints.models import Sprint
    from tests.areas.projects.factories import make_project

    base, sessions = live
    boss = executive(sessions)

    def planned(db):
        project = make_project(db)
        roadmap = Roadmap(name="R", project_id=project.id)
        db.add(roadmap)
        db.flush()
        item = RoadmapItem(roadmap_id=roadmap.id, title="I")
        sprint = Sprint(project_id=project.id, name="S")
        db.add_all([item, sprint])
        db.flush()
        return project, item, sprint

    [(project, item, sprint)] = _make(sessions, planned)
    answers = []
    with sessions() as create:  # a task create naming the item and the sprint, past its first lock (the item)
        create.execute(text("SELECT id FROM roadmap_items WHERE id = :id FOR KEY SHARE"), {"id": item.id})
        deleting = threading.Thread(target=lambda: answers.append(
            _call(base, "DELETE", f"/api/projects/{project.id}", _token(boss))))
        deleting.start()
        time.sleep(1.0)
        assert deleting.is_alive(), "the delete did not wait for the roadmap item"
        with sessions() as probe:  # the create's next lock: the sprint must be free
            try:
                probe.execute(text("SET LOCAL lock_timeout = '200ms'"))
                free = probe.execute(text("SELECT id FROM sprints WHERE id = :id FOR KEY SHARE"),
                                     {"id": sprint.id}).scalar() is not None
            except DBAPIError:  # lock_timeout: the delete holds it
                free = False
            probe.rollback()
        create.commit()
    deleting.join(timeout=TIMEOUT)
    assert answers and answers[0][0] in (200, 204), answers
    assert free, "the delete held the project's sprint while it waited on the roadmap item (a create's next lock)"


