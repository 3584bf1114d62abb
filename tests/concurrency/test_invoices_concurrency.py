"""Invoices under concurrent requests (issue 15 items 1 and 2), against the real server of test_concurrency:
generated numbers stay unique and gap-free; concurrent generations never bill a time entry twice."""
from __future__ import annotations

import secrets
from decimal import Decimal

from sqlalchemy import func, select

from tests.concurrency.test_concurrency import THREADS, _all_at_once, _call, _token, executive
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_concurrent_creates_take_consecutive_numbers(live):

    base, sessions = live
    user = executive(sessions)
    token = _token(user)
    results = _all_at_once([lambda: _call(base, "POST", "/api/invoices", token, {}) for _ in range(THREADS)])
    assert [status for status, _ in results] == [201] * THREADS, results
    values = sorted(int(body["invoice"]["invoice_number"].split("-")[1]) for _, body in results)
    assert values == list(range(values[0], values[0] + THREADS)), values


def test_concurrent_generations_bill_each_entry_once(live):
    from chalicelib.areas.invoices.models import InvoiceTimeEntry
    from tests.areas.budgets.factories import make_budget, make_line_item
    from tests.areas.timesheets.factories import make_entry
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        budget = make_budget(db, budget_type="time_and_materials")
        line = make_line_item(db, budget, unit_price=Decimal("100"))
        entries = [make_entry(db, user, budget_id=budget.id, line_item_id=line.id, hours=Decimal("1"),
                              status="approved") for _ in range(5)]
        db.commit()
    token = _token(user)
    body = {"budget_id": budget.id, "generate_from_budget": True}
    results = _all_at_once([lambda: _call(base, "POST", "/api/invoices", token, body) for _ in range(THREADS)])
    statuses = sorted(status for status, _ in results)
    assert statuses == [201] + [409] * (THREADS - 1), results
    winner = next(body for status, body in results if status == 201)["invoice"]
    assert winner["subtotal"] == 500
    with sessions() as db:
        linked = db.scalar(select(func.count()).select_from(InvoiceTimeEntry)
                           .where(InvoiceTimeEntry.time_entry_id.in_([e.id for e in entries])))
        assert linked == 5
