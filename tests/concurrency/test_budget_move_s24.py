"""Session 24: a budget's move to a project meets the time entries being written that name it (a real HTTP server
on Postgres, the helpers of test_concurrency.py). update_budget locks the budget's row FOR UPDATE, which conflicts
with the FOR KEY SHARE a time entry's write takes on a budget it names anew (budgets' visible_budget_resource): that
write is waited for and then counted. An entry that names the budget already and changes its project reads the
budget without a lock (its delete may be waiting for the entry's row): the move locks the entries naming it, so such
a write in progress is waited for too, and then counted."""
from __future__ import annotations

import secrets
from datetime import date

from sqlalchemy import select, text, update

from tests.concurrency.test_concurrency import _call, _token, executive, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def _world(sessions, *, with_entry: bool):
    from tests.areas.budgets.factories import make_budget
    from tests.areas.projects.factories import make_project
    from tests.areas.timesheets.factories import make_entry
    from tests.factories import make_user

    with sessions() as db:
        worker = make_user(db, email=f"worker-{secrets.token_hex(4)}@agency.test")
        q, p = make_project(db), make_project(db)
        budget = make_budget(db, resource_id=q.id)
        entry = make_entry(db, worker, budget_id=budget.id) if with_entry else None
        db.commit()
    return worker, q, p, budget, entry


def _stored(sessions, budget_id):
    from chalicelib.areas.budgets.models import Budget
    from chalicelib.areas.timesheets.models import TimeEntry

    with sessions() as db:
        resource = db.scalar(select(Budget.resource_id).where(Budget.id == budget_id))
        projects = db.scalars(select(TimeEntry.project_id).where(TimeEntry.budget_id == budget_id)).all()
    return resource, projects


def test_an_entry_written_onto_the_budget_meanwhile_is_counted(live):
    """Another transaction share-locks the budget FOR KEY SHARE (as visible_budget_resource) and writes an entry of
    the budget's current project: the move waits for it, then refuses (409), the budget unmoved."""
    from chalicelib.areas.budgets.models import Budget
    from chalicelib.areas.timesheets.models import TimeEntry
    from chalicelib.core.locks import insert_rows

    base, sessions = live
    user = executive(sessions)
    worker, q, p, budget, _ = _world(sessions, with_entry=False)

    def hold(db):
        db.execute(select(Budget.id).where(Budget.id == budget.id).with_for_update(read=True, key_share=True))
        insert_rows(db, TimeEntry, [{"user_id": worker.id, "date": date(2026, 3, 2),
                                     "hours": 1, "budget_id": budget.id, "project_id": q.id, "status": "draft",
                                     "billable": True}])

    status, body = while_held(sessions, hold, lambda: _call(
        base, "PUT", f"/api/budgets/{budget.id}", _token(user), {"resource_id": p.id}))
    assert status == 409, body
    assert _stored(sessions, budget.id) == (q.id, [q.id])


def test_an_entry_of_the_budget_changing_its_project_meanwhile_is_counted(live):
    """Another transaction holds a projectless entry of the budget and gives it the budget's project (an entry update
    that read the budget before the move): the move waits for that entry's row, then refuses (409). Without the
    entries' lock the move went through and left the entry on the old project."""
    from chalicelib.areas.timesheets.models import TimeEntry

    base, sessions = live
    user = executive(sessions)
    _worker, q, p, budget, entry = _world(sessions, with_entry=True)

    def hold(db):
        db.execute(text("SELECT id FROM time_entries WHERE id = :id FOR UPDATE"), {"id": entry.id})
        db.execute(update(TimeEntry).where(TimeEntry.id == entry.id).values(project_id=q.id))

    status, body = while_held(sessions, hold, lambda: _call(
        base, "PUT", f"/api/budgets/{budget.id}", _token(user), {"resource_id": p.id}))
    assert status == 409, body
    assert _stored(sessions, budget.id) == (q.id, [q.id])


def test_a_projectless_entry_takes_the_project_after_a_write_that_leaves_it_projectless(live):
    """The held entry's write keeps it projectless (another field): the move waits, then gives it P."""
    from chalicelib.areas.timesheets.models import TimeEntry

    base, sessions = live
    user = executive(sessions)
    _worker, _q, p, budget, entry = _world(sessions, with_entry=True)
    status, body = while_held(sessions, update(TimeEntry).where(TimeEntry.id == entry.id).values(description="x"),
                              lambda: _call(base, "PUT", f"/api/budgets/{budget.id}", _token(user),
                                            {"resource_id": p.id}))
    assert status == 200, body
    assert _stored(sessions, budget.id) == (p.id, [p.id])
