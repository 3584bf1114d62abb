"""Budget line item races against a real HTTP server on Postgres (the server and helpers of test_concurrency.py).

A line item's amount is quantity * unit_price: an update that read the item before another update of it committed
must not compute the amount from the quantity (or price) that other update replaced."""
from __future__ import annotations

import secrets
from decimal import Decimal

from sqlalchemy import update

from tests.concurrency.test_concurrency import _call, _token, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_a_price_update_waiting_for_a_quantity_update_keeps_the_amount_their_product(live):
    from chalicelib.areas.budgets.models import Budget, BudgetLineItem
    from chalicelib.core.ids import utcnow
    from tests.areas.budgets.factories import make_budget, make_line_item
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        budget = make_budget(db)
        item = make_line_item(db, budget, quantity=Decimal("1"), unit_price=Decimal("100"))
        db.commit()
    # another line item update (quantity 2), holding the item and budget rows till it commits
    status, body = while_held(
        sessions, [update(BudgetLineItem).where(BudgetLineItem.id == item.id)
                   .values(quantity=Decimal("2"), amount=Decimal("200")),
                   update(Budget).where(Budget.id == budget.id).values(updated_at=utcnow())],
        lambda: _call(base, "PUT", f"/api/budgets/{budget.id}/line-items/{item.id}", _token(user),
                      {"unit_price": "50"}))
    assert status == 200, body
    with sessions() as db:
        stored = db.get(BudgetLineItem, item.id)
        assert (stored.quantity, stored.unit_price) == (Decimal("2"), Decimal("50"))
        assert stored.amount == Decimal("100")  # 2 x 50, not 1 x 50 from the quantity read before the wait


def _entries(sessions, entity_id: str, action: str) -> int:
    from sqlalchemy import func, select

    from chalicelib.core.models import HistoryEntry

    with sessions() as db:
        return db.scalar(select(func.count()).select_from(HistoryEntry).where(
            HistoryEntry.entity_id == entity_id, HistoryEntry.action == action))


def test_line_item_and_budget_deletes_at_once_remove_each_once(live):
    from tests.areas.budgets.factories import make_budget, make_line_item
    from tests.concurrency.test_concurrency import THREADS, _all_at_once
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        budget = make_budget(db)
        item = make_line_item(db, budget)
        db.commit()
    token = _token(user)
    for path, action in ((f"/api/budgets/{budget.id}/line-items/{item.id}", "line_item_removed"),
                         (f"/api/budgets/{budget.id}", "deleted")):
        results = _all_at_once([(lambda path=path: _call(base, "DELETE", path, token)) for _ in range(THREADS)])
        statuses = sorted(status for status, _ in results)
        assert statuses == [200] + [404] * (THREADS - 1), (path, results)
        assert _entries(sessions, budget.id, action) == 1
