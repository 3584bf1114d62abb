"""The `sla-breach-scan` job marks the assignments it notices in a fixed number of statements whatever their number
(docs/decisions.md, "Bulk writes": pg8000 runs an `executemany` row by row, so an ORM change per assignment was one
UPDATE, one round trip, per assignment). Counted as pg8000 sends them, at 3 and at 20 assignments."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.factories import config_item, make_user


def test_the_scan_costs_the_same_for_3_and_20_breaches(db, driver_statements, aws):
    from chalicelib.areas.sla.jobs import breach_scan
    from chalicelib.areas.sla.models import SlaPolicy, TaskSla
    from tests.areas.tasks.factories import make_task

    policy = SlaPolicy(name="Gold")
    db.add(policy)
    db.flush()
    high = config_item(db, "task_priority", "high").id
    past = utcnow() - timedelta(hours=3)
    counts = []
    for size in (3, 20):
        slas = []
        for index in range(size):
            # every other task has an assignee (who may read it: their own task), the others none
            assignee = make_user(db).id if index % 2 == 0 else None
            task = make_task(db, priority_id=high, assignee_id=assignee)
            sla = TaskSla(task_id=task.id, policy_id=policy.id, priority_id=high, created_at=past,
                          response_deadline=past + timedelta(hours=1), resolution_deadline=past + timedelta(hours=2))
            db.add(sla)
            slas.append((sla, task, assignee))
        db.flush()
        told_before = db.scalar(select(func.count(Notification.id)).where(Notification.type == "sla_breach"))
        statements, answer = driver_statements(breach_scan)
        assert answer == {"noticed": size}
        counts.append(len(statements))
        db.expire_all()
        noticed = {sla.breach_notified_at for sla, _task, _assignee in slas}
        assert len(noticed) == 1 and None not in noticed  # every assignment marked, at the scan's time
        told = db.scalars(select(Notification.resource_id).where(Notification.type == "sla_breach")).all()
        assert len(told) - told_before == sum(1 for *_, assignee in slas if assignee)
        assert {task.id for _sla, task, assignee in slas if assignee} <= set(told)
        assert breach_scan() == {"noticed": 0}  # run twice, one effect
    assert counts[0] == counts[1], counts
