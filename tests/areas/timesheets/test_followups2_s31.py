"""Session 31, round 2 (decided follow-ups of the invariants audit; docs/decisions/timesheets.md, "No time logged on a
cancelled budget").

1. A budget set `cancelled` (decisions.md section 9) bills nothing more and its line items are frozen (budgets,
   invoices: session 31), but time was still logged on it: a create naming it or one of its line items, and an update
   moving an entry onto it or onto one of its line items, answered 201 / 200. Now each is a 409 naming the state,
   nothing written. An entry already on it keeps every other write (read, edited in its other fields, sent back as
   stored, submitted, moved off it, deleted); the way out is the budget's status, set back first.
2. A billed entry (one an invoice line bills) keeps what its line billed: generation bills approved entries only, and
   an approved entry is not edited (409 "only draft or rejected") nor given back another status; its owner is fixed
   (400). Guard tests: nothing changed in the code for it.
"""
from __future__ import annotations

import os
import secrets
from decimal import Decimal

import pytest
from sqlalchemy import func, select, text

from chalicelib.areas.timesheets.models import TimeEntry
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.projects.factories import make_project
from tests.areas.timesheets.factories import make_entry
from tests.concurrency.conftest import live  # noqa: F401 - the real server the race below needs (Postgres only)
from tests.concurrency.test_concurrency import _call, _token, executive, while_held
from tests.factories import make_user

BASE = {"date": "2026-03-02", "hours": 1}


def _stored(api, user, entry_id) -> dict:
    answer = api.get(f"/api/time-entries/{entry_id}", as_=user)
    assert answer.status == 200, answer
    return answer.json["time_entry"]


def _count(db, budget_id) -> int:
    db.expire_all()
    return db.scalar(select(func.count(TimeEntry.id)).where(TimeEntry.budget_id == budget_id))


def _world(db):
    project = make_project(db)
    cancelled = make_budget(db, resource_id=project.id, status="cancelled")
    active = make_budget(db, resource_id=project.id, status="active")
    return type("World", (), {"project": project, "cancelled": cancelled, "live": active,
                              "item": make_line_item(db, cancelled, description="Design"),
                              "other_item": make_line_item(db, cancelled, description="Build", position=1),
                              "live_item": make_line_item(db, active, description="Design")})


# ---------------------------------------------------------------- 1. not logged on a cancelled budget

def test_no_time_is_logged_on_a_cancelled_budget(api, db, exec_user):
    w = _world(db)
    for body in ({"budget_id": w.cancelled.id}, {"budget_id": w.cancelled.id, "line_item_id": w.item.id},
                 {"budget_id": w.cancelled.id, "project_id": w.project.id, "status": "submitted"}):
        refused = api.post("/api/time-entries", as_=exec_user, json={**BASE, **body})
        assert refused.status == 409, refused
        assert "cancelled" in refused.json["error"], refused
    assert _count(db, w.cancelled.id) == 0  # nothing written


def test_an_update_does_not_move_an_entry_onto_a_cancelled_budget(api, db, exec_user):
    w = _world(db)
    entry = make_entry(db, exec_user, project_id=w.project.id, budget_id=w.live.id, line_item_id=w.live_item.id)
    path = f"/api/time-entries/{entry.id}"
    for body in ({"budget_id": w.cancelled.id, "line_item_id": None},
                 {"budget_id": w.cancelled.id, "line_item_id": w.item.id, "hours": 3}):
        refused = api.put(path, as_=exec_user, json=body)
        assert refused.status == 409 and "cancelled" in refused.json["error"], refused
    stored = _stored(api, exec_user, entry.id)
    assert (stored["budget_id"], stored["line_item_id"], stored["hours"]) == (w.live.id, w.live_item.id, 2.5)


def test_an_update_does_not_name_a_cancelled_budgets_line_item(api, db, exec_user):
    """The entry names the cancelled budget already (logged before it was called off): naming one of its line items
    anew, or another of them, logs time on the frozen lines (the budget detail's hours per line)."""
    w = _world(db)
    bare = make_entry(db, exec_user, project_id=w.project.id, budget_id=w.cancelled.id)
    on_item = make_entry(db, exec_user, project_id=w.project.id, budget_id=w.cancelled.id, line_item_id=w.item.id)
    refused = api.put(f"/api/time-entries/{bare.id}", as_=exec_user, json={"line_item_id": w.item.id})
    assert refused.status == 409 and "cancelled" in refused.json["error"], refused
    moved = api.put(f"/api/time-entries/{on_item.id}", as_=exec_user, json={"line_item_id": w.other_item.id})
    assert moved.status == 409 and "cancelled" in moved.json["error"], moved
    assert _stored(api, exec_user, bare.id)["line_item_id"] is None
    assert _stored(api, exec_user, on_item.id)["line_item_id"] == w.item.id


def test_bad_references_are_answered_before_the_cancelled_budget(api, db, exec_user):
    """The 400s of the references come first (a line item of another budget, a task that does not exist)."""
    w = _world(db)
    refused = api.post("/api/time-entries", as_=exec_user,
                       json={**BASE, "budget_id": w.cancelled.id, "line_item_id": w.live_item.id})
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == ["line_item_id"]


def test_an_entry_already_on_a_cancelled_budget_lives_on(api, db, exec_user):
    """Guard: what was logged before the budget was called off is read, edited in its other fields, sent back as
    stored, submitted, taken off its line item, moved to another budget and deleted, as its rules allow."""
    w = _world(db)
    entry = make_entry(db, exec_user, project_id=w.project.id, budget_id=w.cancelled.id, line_item_id=w.item.id)
    path = f"/api/time-entries/{entry.id}"
    stored = _stored(api, exec_user, entry.id)
    edited = api.put(path, as_=exec_user, json={"hours": 4, "description": "called off midway", "billable": False})
    assert edited.status == 200, edited
    as_read = api.put(path, as_=exec_user, json={"budget_id": stored["budget_id"], "line_item_id": w.item.id,
                                                 "project_id": w.project.id, "date": "2026-03-03"})
    assert as_read.status == 200, as_read
    assert api.post(f"{path}/submit", as_=exec_user).status == 200
    second = make_entry(db, exec_user, project_id=w.project.id, budget_id=w.cancelled.id, line_item_id=w.item.id)
    off_item = api.put(f"/api/time-entries/{second.id}", as_=exec_user, json={"line_item_id": None})
    assert off_item.status == 200 and off_item.json["time_entry"]["line_item_id"] is None, off_item
    moved = api.put(f"/api/time-entries/{second.id}", as_=exec_user,
                    json={"budget_id": w.live.id, "line_item_id": w.live_item.id})
    assert moved.status == 200 and moved.json["time_entry"]["budget_id"] == w.live.id, moved
    third = make_entry(db, exec_user, budget_id=w.cancelled.id, project_id=w.project.id)
    assert api.delete(f"/api/time-entries/{third.id}", as_=exec_user).json == {"ok": True}
    assert _stored(api, exec_user, entry.id)["hours"] == 4
    assert api.get(f"/api/budgets/{w.cancelled.id}", as_=exec_user).status == 200


def test_the_way_out_is_the_budgets_status_and_other_statuses_take_time(api, db, exec_user):
    w = _world(db)
    for status in ("draft", "pending_approval", "active", "completed"):
        budget = make_budget(db, resource_id=w.project.id, status=status)
        made = api.post("/api/time-entries", as_=exec_user, json={**BASE, "budget_id": budget.id})
        assert made.status == 201, (status, made)
    assert api.put(f"/api/budgets/{w.cancelled.id}", as_=exec_user, json={"status": "active"}).status == 200
    made = api.post("/api/time-entries", as_=exec_user,
                    json={**BASE, "budget_id": w.cancelled.id, "line_item_id": w.item.id})
    assert made.status == 201, made


def test_a_team_member_meets_the_same_answer(api, db):
    """An employee of the project (budgets:view through the project's scope) logging their own time."""
    worker = make_user(db, name="Wes Worker")
    project = make_project(db, members=[worker])
    cancelled = make_budget(db, resource_id=project.id, status="cancelled")
    refused = api.post("/api/time-entries", as_=worker, json={**BASE, "budget_id": cancelled.id})
    assert refused.status == 409 and "cancelled" in refused.json["error"], refused
    active = make_budget(db, resource_id=project.id, status="active")
    assert api.post("/api/time-entries", as_=worker, json={**BASE, "budget_id": active.id}).status == 201


@pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite", reason="row locks need Postgres")
def test_a_cancel_in_progress_is_waited_for(live):  # noqa: F811 - the fixture imported above
    """Another transaction cancels the budget as `update_budget` does (its row locked FOR UPDATE, then the status
    written) and holds it: the create's read of the budget (FOR KEY SHARE) waits for it, then reads `cancelled` and
    answers 409, nothing written. On a real server and its own database (tests/concurrency/conftest.py)."""
    base, sessions = live
    user = executive(sessions)
    with sessions() as db:
        budget = make_budget(db, resource_id=make_project(db).id, status="active",
                             name=f"Race {secrets.token_hex(4)}")
        db.commit()
    cancel = [text("SELECT id FROM budgets WHERE id = :id FOR UPDATE").bindparams(id=budget.id),
              text("UPDATE budgets SET status = 'cancelled' WHERE id = :id").bindparams(id=budget.id)]
    status, body = while_held(sessions, cancel, lambda: _call(
        base, "POST", "/api/time-entries", _token(user), {**BASE, "budget_id": budget.id}))
    assert status == 409 and "cancelled" in body["error"], body
    with sessions() as db:
        assert db.scalar(select(func.count(TimeEntry.id)).where(TimeEntry.budget_id == budget.id)) == 0


# ---------------------------------------------------------------- 2. a billed entry keeps what its line billed

def test_a_billed_entry_keeps_what_its_invoice_line_billed(api, db, exec_user):
    """Guard (no code change): generation bills approved entries only, and an approved entry is neither edited nor
    set back to draft (409), whoever asks; its owner is fixed (400). Its invoice line and the entry agree."""
    worker = make_user(db)
    project = make_project(db)
    budget = make_budget(db, resource_id=project.id, budget_type="time_and_materials", status="active")
    dev = make_line_item(db, budget, description="Development", unit_price=Decimal(150))
    design = make_line_item(db, budget, description="Design", unit_price=Decimal(120), position=1)
    other = make_budget(db, resource_id=project.id, status="active")
    entry = make_entry(db, worker, project_id=project.id, budget_id=budget.id, line_item_id=dev.id,
                       hours=Decimal(2), status="approved")
    made = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id, "generate_from_budget": True})
    assert made.status == 201, made
    path = f"/api/time-entries/{entry.id}"
    for body in ({"hours": 5}, {"date": "2026-03-09"}, {"billable": False}, {"budget_id": other.id},
                 {"line_item_id": design.id}, {"line_item_id": None}, {"status": "draft"}):
        refused = api.put(path, as_=exec_user, json=body)
        assert refused.status == 409, (body, refused)
    assert api.put(path, as_=exec_user, json={"user_id": exec_user.id}).status == 400
    assert api.post(f"{path}/submit", as_=exec_user).status == 409
    assert api.post(f"{path}/reject", as_=exec_user, json={}).status == 409
    stored = _stored(api, exec_user, entry.id)
    assert (stored["hours"], stored["date"], stored["billable"], stored["budget_id"], stored["line_item_id"],
            stored["user_id"], stored["status"]) == (2, "2026-03-02", True, budget.id, dev.id, worker.id, "approved")
