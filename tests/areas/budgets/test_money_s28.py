"""Session 28's money audit: a budget line's amount, and the sum of a budget's lines, stay below 10^12 in size (as its
total_amount and an invoice line's unit price), so that every amount is answered to the cent (docs/decisions/budgets.md,
session 28)."""
from decimal import Decimal

from tests.areas.budgets.factories import make_budget
from tests.factories import exact_json


def lines_path(budget):
    return f"/api/budgets/{budget.id}/line-items"


def add(api, user, budget, **body):
    return api.post(lines_path(budget), as_=user, json={"description": "Work", **body})


def test_a_line_amount_of_10_to_the_12_or_more_is_a_400_naming_quantity_and_unit_price(api, db, exec_user):
    """1,234,567,890.12 x 987,654,321,098.76 fits each column, and was answered 1.219326311366797e+21: its last seven
    digits and its cents gone."""
    budget = make_budget(db, budget_type="sprints")
    refused = add(api, exec_user, budget, quantity="1234567890.12", unit_price="987654321098.76")
    assert refused.status == 400, refused
    assert {d["field"] for d in refused.json["details"]} == {"quantity", "unit_price"}
    assert api.get(f"/api/budgets/{budget.id}", as_=exec_user).json["line_items"] == []


def test_a_line_just_below_the_bound_is_answered_to_the_cent(api, db, exec_user):
    budget = make_budget(db, budget_type="sprints")
    made = add(api, exec_user, budget, quantity="2.5", unit_price="399999999999.99")
    assert made.status == 201, made
    assert exact_json(made)["item"]["amount"] == Decimal("999999999999.98")  # 999,999,999,999.975 half up
    found = exact_json(api.get(f"/api/budgets/{budget.id}", as_=exec_user))
    assert found["budget"]["spent_amount"] == Decimal("999999999999.98")


def test_a_line_that_takes_the_sum_of_the_lines_to_10_to_the_12_is_a_400(api, db, exec_user):
    budget = make_budget(db, budget_type="sprints")
    first = add(api, exec_user, budget, quantity=1, unit_price="600000000000").json["item"]
    second = add(api, exec_user, budget, quantity=1, unit_price="400000000000")
    assert second.status == 400, second
    assert add(api, exec_user, budget, quantity=1, unit_price="300000000000").status == 201
    raised = api.put(f"{lines_path(budget)}/{first['id']}", as_=exec_user, json={"quantity": "2"})
    assert raised.status == 400, raised
    assert [d["field"] for d in raised.json["details"]] == ["quantity"]
    found = api.get(f"/api/budgets/{budget.id}", as_=exec_user).json["budget"]
    assert found["spent_amount"] == 900000000000.0


def test_removing_a_discount_that_keeps_the_sum_below_the_bound_is_a_409(api, db, exec_user):
    budget = make_budget(db, budget_type="sprints")
    assert add(api, exec_user, budget, quantity=1, unit_price="900000000000").status == 201
    discount = add(api, exec_user, budget, quantity=1, unit_price="-500000000000").json["item"]
    assert add(api, exec_user, budget, quantity=1, unit_price="500000000000").status == 201
    removed = api.delete(f"{lines_path(budget)}/{discount['id']}", as_=exec_user)
    assert removed.status == 409, removed
    assert api.get(f"/api/budgets/{budget.id}", as_=exec_user).json["budget"]["spent_amount"] == 900000000000.0
