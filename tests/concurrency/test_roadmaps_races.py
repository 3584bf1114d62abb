"""Roadmap item updates racing other writes, against a real HTTP server on Postgres (the server and helpers of
test_concurrency.py; deterministic: another transaction holds the rows while the request runs).

An item update checks its dates against the item's other date, and its goal against the roadmap's project: both as
they stand once any write it waited for has committed."""
from __future__ import annotations

import secrets
from datetime import date

from sqlalchemy import update

from tests.concurrency.test_concurrency import _call, _token, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def _roadmap(sessions, **item):
    from chalicelib.areas.projects.models import ProjectGoal
    from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
    from tests.areas.projects.factories import make_project
    from tests.factories import make_user

    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        first, second = make_project(db), make_project(db)
        goal = ProjectGoal(project_id=first.id, title="Launch")
        roadmap = Roadmap(name="Plan", project_id=first.id)
        db.add_all([goal, roadmap])
        db.flush()
        row = RoadmapItem(roadmap_id=roadmap.id, title="Beta", **item)
        db.add(row)
        db.commit()
    return user, second, goal, roadmap, row


def test_an_item_date_update_waiting_for_another_checks_the_range_it_leaves(live):
    from chalicelib.areas.roadmaps.models import RoadmapItem

    base, sessions = live
    user, _, _, roadmap, item = _roadmap(sessions, start_date=date(2030, 3, 1), end_date=date(2030, 3, 31))
    # another item update moving the end to 10 March, not committed yet
    status, body = while_held(sessions, update(RoadmapItem).where(RoadmapItem.id == item.id)
                              .values(end_date=date(2030, 3, 10)),
                              lambda: _call(base, "PUT", f"/api/roadmaps/{roadmap.id}/items/{item.id}", _token(user),
                                            {"start_date": "2030-03-20"}))
    assert status == 400, body
    with sessions() as db:
        stored = db.get(RoadmapItem, item.id)
        assert (stored.start_date, stored.end_date) == (date(2030, 3, 1), date(2030, 3, 10))


def test_an_item_goal_update_waiting_for_a_project_move_is_checked_against_the_new_project(live):
    from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem

    base, sessions = live
    user, second, goal, roadmap, item = _roadmap(sessions)
    # the roadmap moved to another project (its items' goals cleared), not committed yet
    status, body = while_held(sessions, [update(Roadmap).where(Roadmap.id == roadmap.id).values(project_id=second.id),
                                         update(RoadmapItem).where(RoadmapItem.roadmap_id == roadmap.id)
                                         .values(goal_id=None)],
                              lambda: _call(base, "PUT", f"/api/roadmaps/{roadmap.id}/items/{item.id}", _token(user),
                                            {"goal_id": goal.id}))
    assert status == 400, body
    with sessions() as db:
        assert db.get(RoadmapItem, item.id).goal_id is None  # no goal of a project the roadmap left
