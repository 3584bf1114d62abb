"""An invoice of a budget is in the budget's currency unless the create names one (docs/decisions/invoices.md):
a USD budget invoiced in AUD was the wrong money."""
from decimal import Decimal

from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.deals.factories import make_company


def create(api, user, **body):
    return api.post("/api/invoices", as_=user, json=body)


def test_an_invoice_of_a_budget_takes_the_budgets_currency(api, db, exec_user):
    budget = make_budget(db, currency="USD")
    made = create(api, exec_user, budget_id=budget.id)
    assert made.status == 201, made
    assert made.json["invoice"]["currency"] == "USD"


def test_a_generated_invoice_takes_the_budgets_currency(api, db, exec_user):
    budget = make_budget(db, currency="NZD", budget_type="sprints", company_id=make_company(db, name="Kiwi").id)
    make_line_item(db, budget, description="Sprint 1", quantity=Decimal("1"), unit_price=Decimal("1000"))
    made = create(api, exec_user, budget_id=budget.id, generate_from_budget=True)
    assert made.status == 201, made
    assert made.json["invoice"]["currency"] == "NZD" and made.json["invoice"]["subtotal"] == 1000
    detail = api.get(f"/api/invoices/{made.json['invoice']['id']}", as_=exec_user).json["invoice"]
    assert detail["currency"] == "NZD"


def test_an_explicit_currency_wins_and_no_budget_is_aud(api, db, exec_user):
    budget = make_budget(db, currency="USD", budget_type="sprints")
    make_line_item(db, budget, description="Sprint 1", quantity=Decimal("1"), unit_price=Decimal("1000"))
    assert create(api, exec_user, budget_id=budget.id, currency="eur").json["invoice"]["currency"] == "EUR"
    # a generated one copies the budget's amounts: it is in the budget's money (tests/areas/invoices/test_money.py)
    generated = create(api, exec_user, budget_id=budget.id, currency="GBP", generate_from_budget=True)
    assert generated.status == 400, generated
    assert create(api, exec_user).json["invoice"]["currency"] == "AUD"
    assert create(api, exec_user, currency=None).status == 400  # omitted is not null
