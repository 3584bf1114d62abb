"""A budget the client approved in the portal (`approved`) keeps the amounts it was approved with (session 22,
docs/decisions/budgets.md, "What the client approved").

Audit: after the portal's approval, a PUT of `total_amount` and line item writes were accepted, so the portal showed
"approved" beside amounts the client never saw. Now: 409 on a change of total_amount, currency or the line items
while the budget is approved, unless the same request (a budget PUT) moves the status out of approved.
"""
from __future__ import annotations

from decimal import Decimal

import pytest

from chalicelib.areas.budgets.models import Budget, BudgetLineItem
from tests.areas.budgets.factories import line_item_writes, make_budget, make_line_item
from tests.areas.portal.conftest import TOKEN, Portal, make_client
from tests.areas.projects.factories import make_project


@pytest.fixture
def portal(api, set_env):
    set_env(PORTAL_SERVICE_TOKEN=TOKEN, WMS_CHECK_RESPONSES="1")
    return Portal(api)


@pytest.fixture
def approved(portal, db):
    """(client, budget, line, other line): a budget of 1000 the client approved in the portal."""
    client = make_client(db)
    budget = make_budget(db, resource_id=make_project(db, company_id=client.id).id, status="pending_approval",
                         total_amount=Decimal("1000"))
    line = make_line_item(db, budget, description="Design", quantity=Decimal("2"), unit_price=Decimal("500"))
    other = make_line_item(db, budget, description="Build", quantity=Decimal("0"), unit_price=Decimal("0"),
                           position=1)
    assert portal.post(f"/budgets/{budget.id}/approve", client, role="admin").status == 200
    return client, budget, line, other


def test_an_approved_budgets_amounts_and_lines_do_not_change(api, db, exec_user, portal, approved):
    client, budget, line, other = approved
    path = f"/api/budgets/{budget.id}"
    answers = {
        "total": api.put(path, as_=exec_user, json={"total_amount": 250000}),
        "currency": api.put(path, as_=exec_user, json={"currency": "USD"}),
        **line_item_writes(api, exec_user, budget, line, other),
    }
    assert {name: answer.status for name, answer in answers.items()} == dict.fromkeys(answers, 409)
    assert "approved" in answers["total"].json["error"] and "status" in answers["total"].json["error"]
    db.expire_all()
    stored = db.get(Budget, budget.id)
    assert (stored.status, stored.total_amount, stored.currency) == ("approved", Decimal("1000"), "AUD")
    assert db.get(BudgetLineItem, line.id).unit_price == Decimal("500")
    assert db.get(BudgetLineItem, other.id) is not None
    shown = portal.get(f"/budgets/{budget.id}", client).json
    assert shown["budget"]["status"] == "approved"
    assert sorted(item["amount"] for item in shown["lineItems"]) == [0, 1000]


def test_other_fields_and_unchanged_amounts_stay_free_while_approved(api, db, exec_user, approved):
    _client, budget, line, _other = approved
    path = f"/api/budgets/{budget.id}"
    # the record as read sent back (its status and amounts unchanged), and fields that are not the money
    answer = api.put(path, as_=exec_user, json={"status": "approved", "total_amount": 1000, "currency": "AUD",
                                                "name": "Build, approved"})
    assert answer.status == 200, answer
    assert api.put(f"{path}/line-items/{line.id}", as_=exec_user,
                   json={"quantity": 2, "unit_price": 500}).status == 200


def test_moving_out_of_approved_in_the_same_request_allows_the_change(api, db, exec_user, approved):
    _client, budget, line, _other = approved
    path = f"/api/budgets/{budget.id}"
    answer = api.put(path, as_=exec_user, json={"status": "draft", "total_amount": 2500})
    assert answer.status == 200, answer
    assert answer.json["budget"]["status"] == "draft" and answer.json["budget"]["total_amount"] == 2500
    # out of approved, its lines change again (and it goes back to the client for a new approval)
    assert api.put(f"{path}/line-items/{line.id}", as_=exec_user, json={"unit_price": 900}).status == 200
    assert api.put(path, as_=exec_user, json={"status": "pending_approval"}).status == 200
