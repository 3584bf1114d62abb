"""Session 25: a client's approval in the portal (`budgets.service_portal.portal_approve`) racing a move of the
budget's project or deal to another client (`update_project` / `update_deal`, which refuse the move while a budget
is `approved`: budgets' `check_client_move`, under the record's FOR UPDATE row lock). The approval locked only the
budget and read its scope (the company's projects and deals) without a lock: it neither waited for the move nor was
waited for, both committed, and client B's record held a budget client A approved. The approval now share-locks the
project or deal (FOR SHARE) after the budget and checks its scope again. Against a real HTTP server on Postgres
(the helpers of test_concurrency.py), deterministic: one transaction is held open, and the test goes on when the
request is seen waiting on a lock (pg_stat_activity), or has finished without waiting.
- move first: the approval waits for it, then finds the record B's and answers 404, the budget still pending;
- approval first: the move waits for it, then counts the approved budget and answers 409, the record still A's."""
from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import select, text, update

from tests.concurrency.test_concurrency import TIMEOUT, _call, _token, executive
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there
from tests.concurrency.test_portal_races import _portal_call


def _world(sessions, resource: str, owner):
    """(client A, client B, the record of A, a budget of it pending approval owned by `owner`), committed."""
    from tests.areas.budgets.factories import make_budget
    from tests.areas.deals.factories import make_deal
    from tests.areas.portal.conftest import make_client
    from tests.areas.projects.factories import make_project

    with sessions() as db:
        a, b = make_client(db), make_client(db)
        record = make_project(db, company_id=a.id) if resource == "project" else make_deal(db, company_id=a.id)
        budget = make_budget(db, resource_type=resource, resource_id=record.id, status="pending_approval",
                             owner_id=owner.id)
        db.commit()
    return a, b, record, budget


def _model(resource: str):
    from chalicelib.areas.deals.models import Deal
    from chalicelib.areas.projects.models import Project

    return Project if resource == "project" else Deal


def _stored(sessions, resource: str, record_id: str, budget_id: str) -> tuple[str, str]:
    from chalicelib.areas.budgets.models import Budget

    model = _model(resource)
    with sessions() as db:
        return (db.scalar(select(model.company_id).where(model.id == record_id)),
                db.scalar(select(Budget.status).where(Budget.id == budget_id)))


def _waiting(sessions) -> int:
    """How many backends of the server's database wait on a lock now (a new transaction: a fresh statistics view)."""
    with sessions() as db:
        return int(db.scalar(text("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                  "AND wait_event_type = 'Lock'")))


def _start(call) -> tuple[threading.Thread, list]:
    answers: list = []

    def run():
        try:
            answers.append(call())
        except Exception as exc:  # noqa: BLE001 - the test checks what it got
            answers.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, answers


def _waits(sessions, thread: threading.Thread, count: int) -> bool:
    """True once `count` backends wait on a lock while `thread` is still running; False when the thread finished
    first (its request waited for nothing)."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if _waiting(sessions) >= count:
            return True
        if not thread.is_alive():
            return False
        time.sleep(0.05)
    raise AssertionError("the request neither waited on a lock nor finished")


@pytest.mark.parametrize("resource", ["project", "deal"])
@pytest.mark.parametrize("how", ["lock_row", "plain_update"])
def test_an_approval_waits_for_the_records_move_and_then_answers_404(live, resource, how):
    """Another transaction moves the record to client B and holds it: as update_project / update_deal do (`lock_row`,
    FOR UPDATE, then the UPDATE), or by a plain UPDATE (FOR NO KEY UPDATE: a FOR KEY SHARE lock would not wait for
    it). A's approval waits for that transaction, then finds the record B's: 404, the budget still pending."""
    base, sessions = live
    owner = executive(sessions)
    a, b, record, budget = _world(sessions, resource, owner)
    model = _model(resource)

    with sessions() as other:
        if how == "lock_row":
            other.execute(select(model.id).where(model.id == record.id).with_for_update())
        other.execute(update(model).where(model.id == record.id).values(company_id=b.id))
        thread, answers = _start(lambda: _portal_call(base, "POST", f"/budgets/{budget.id}/approve", a.id))
        waited = _waits(sessions, thread, 1)
        other.commit()
    thread.join(timeout=TIMEOUT)
    assert waited, f"the approval did not wait for the move: {answers}"
    status, body = answers[0]
    assert status == 404, body
    assert _stored(sessions, resource, record.id, budget.id) == (b.id, "pending_approval")


@pytest.mark.parametrize("resource", ["project", "deal"])
def test_a_move_waits_for_an_approval_in_progress_and_then_answers_409(live, resource):
    """A's approval is held open after its writes (its notice to the budget's owner waits on the owner's user row,
    which another transaction holds): a move of the record to client B meanwhile waits for the approval (the
    approval's share lock on the record), then counts the approved budget: 409, the record still A's."""
    from chalicelib.core.models import User

    base, sessions = live
    owner, mover = executive(sessions), executive(sessions)
    a, b, record, budget = _world(sessions, resource, owner)
    path = f"/api/projects/{record.id}" if resource == "project" else f"/api/deals/deals/{record.id}"

    with sessions() as other:
        other.execute(select(User.id).where(User.id == owner.id).with_for_update())  # the notice's key waits on it
        approval, approved = _start(lambda: _portal_call(base, "POST", f"/budgets/{budget.id}/approve", a.id))
        assert _waits(sessions, approval, 1), f"the approval was not held open: {approved}"
        move, moved = _start(lambda: _call(base, "PUT", path, _token(mover), {"company_id": b.id}))
        move_waited = _waits(sessions, move, 2)
        other.commit()
    approval.join(timeout=TIMEOUT)
    move.join(timeout=TIMEOUT)
    assert approved[0][0] == 200, approved
    assert moved[0][0] == 409, f"the move did not wait for the approval (waited={move_waited}): {moved}"
    assert "1 approved budget" in moved[0][1]["error"]
    assert _stored(sessions, resource, record.id, budget.id) == (a.id, "approved")
