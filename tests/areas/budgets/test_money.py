"""The money of budgets (money audit): a line's amount is in cents, so the lines, the spent amount, the detail and
what an invoice bills agree; a budget's currency does not change under its invoices."""
from decimal import Decimal

from tests.areas.budgets.factories import make_budget
from tests.areas.invoices.factories import make_invoice


def add(api, user, budget_id, **body):
    answer = api.post(f"/api/budgets/{budget_id}/line-items", as_=user, json={"description": "Work", **body})
    assert answer.status == 201, answer
    return answer.json["item"]


def test_a_line_amount_is_rounded_half_up_to_the_cent(api, db, exec_user):
    """0.33 x 33.33 = 10.9989 was answered with four decimals (more than the currency holds), and the lines did not
    add up to what an invoice of them bills; 0.5 x 0.01 = 0.005 is 0.01 (half up, not the banker's 0.00)."""
    budget = make_budget(db, budget_type="sprints")
    first = add(api, exec_user, budget.id, quantity="0.33", unit_price="33.33")
    assert first["amount"] == 11.0
    assert add(api, exec_user, budget.id, quantity="0.5", unit_price="0.01")["amount"] == 0.01
    assert add(api, exec_user, budget.id, quantity=3, unit_price="33.33")["amount"] == 99.99
    assert add(api, exec_user, budget.id, quantity="0.5", unit_price="-0.01")["amount"] == -0.01  # away from zero
    edited = api.put(f"/api/budgets/{budget.id}/line-items/{first['id']}", as_=exec_user, json={"quantity": "0.67"})
    assert edited.json["item"]["amount"] == 22.33  # 22.3311
    detail = api.get(f"/api/budgets/{budget.id}", as_=exec_user).json
    amounts = [item["amount"] for item in detail["line_items"]]
    assert detail["budget"]["spent_amount"] == float(sum(Decimal(str(a)) for a in amounts)) == 122.32
    # an invoice generated from the budget bills exactly its lines
    invoice = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id, "generate_from_budget": True})
    assert invoice.status == 201, invoice
    assert invoice.json["invoice"]["subtotal"] == 122.32


def test_a_budgets_currency_does_not_change_under_its_invoices(api, db, exec_user):
    """A budget in AUD with an AUD invoice, moved to USD, had its USD total less AUD invoices as the fixed price
    left to bill: 409 while an invoice that is not voided is in another currency; a voided one does not count."""
    budget = make_budget(db, currency="AUD", budget_type="fixed_price", total_amount=Decimal("1000"))
    path = f"/api/budgets/{budget.id}"
    invoice = make_invoice(db, budget_id=budget.id, currency="AUD")
    refused = api.put(path, as_=exec_user, json={"currency": "usd", "notes": "n"})
    assert refused.status == 409, refused
    assert api.get(path, as_=exec_user).json["budget"]["currency"] == "AUD"
    assert api.put(path, as_=exec_user, json={"currency": "AUD", "notes": "same"}).status == 200  # no change
    invoice.status = "voided"
    db.flush()
    moved = api.put(path, as_=exec_user, json={"currency": "usd"})
    assert moved.status == 200 and moved.json["budget"]["currency"] == "USD"
