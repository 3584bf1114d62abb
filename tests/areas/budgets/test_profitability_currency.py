"""A project's profitability never adds two currencies together (docs/decisions/budgets.md, "Project profitability"):
a USD 10,000 budget and an AUD 5,000 budget answered budget_total 15,000 (money audit). The top-level budget_total,
invoiced and collected are in `currency` (the project's budgets' currency; of several, the largest budget total's);
`by_currency` holds each currency's figures."""
from decimal import Decimal

from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.invoices.factories import make_invoice
from tests.areas.projects.factories import make_project


def profitability(api, user, project):
    answer = api.get(f"/api/projects/{project.id}/profitability", as_=user)
    assert answer.status == 200, answer
    return answer.json


def money(body):
    return body["currency"], body["budget_total"], body["invoiced"], body["collected"]


def entry(currency, budget_total, invoiced=0.0, collected=0.0):
    return {"currency": currency, "budget_total": budget_total, "invoiced": invoiced, "collected": collected}


def invoice(db, budget, total, paid="0", **values):
    return make_invoice(db, budget_id=budget.id, currency=values.pop("currency", budget.currency),
                        total=Decimal(total), amount_paid=Decimal(paid), **values)


def test_one_currency_answers_as_before_with_its_currency(api, db, exec_user):
    project = make_project(db)
    fixed = make_budget(db, resource_id=project.id, currency="USD", total_amount=Decimal("1000.50"))
    lines_only = make_budget(db, resource_id=project.id, currency="USD")
    make_line_item(db, lines_only, quantity=Decimal("2"), unit_price=Decimal("100.25"))
    invoice(db, fixed, "550.00", "200.10")
    invoice(db, lines_only, "110.00")
    body = profitability(api, exec_user, project)
    assert money(body) == ("USD", 1201.0, 660.0, 200.1)
    assert body["by_currency"] == [entry("USD", 1201.0, 660.0, 200.1)]


def test_two_currencies_are_never_added(api, db, exec_user):
    """USD 10,000 and AUD 5,000: the top level is the USD budget's money only (15,000 before); each currency is its
    own entry, the larger budget total first."""
    project = make_project(db)
    usd = make_budget(db, resource_id=project.id, currency="USD", total_amount=Decimal("10000"))
    aud = make_budget(db, resource_id=project.id, currency="AUD", total_amount=Decimal("5000"))
    invoice(db, usd, "1100", "1100")
    invoice(db, aud, "4400", "2000")
    body = profitability(api, exec_user, project)
    assert money(body) == ("USD", 10000.0, 1100.0, 1100.0)
    assert body["by_currency"] == [entry("USD", 10000.0, 1100.0, 1100.0), entry("AUD", 5000.0, 4400.0, 2000.0)]
    # a tie of budget totals is taken by currency code
    make_budget(db, resource_id=project.id, currency="AUD", total_amount=Decimal("5000"))
    body = profitability(api, exec_user, project)
    assert money(body) == ("AUD", 10000.0, 4400.0, 2000.0)
    assert [e["currency"] for e in body["by_currency"]] == ["AUD", "USD"]


def test_a_cancelled_budget_and_a_voided_invoice_are_not_counted(api, db, exec_user):
    """The budgets budget_total counts (not cancelled) choose the currency: a larger cancelled GBP budget is not
    it, nor listed; a voided invoice counts in no currency."""
    project = make_project(db)
    usd = make_budget(db, resource_id=project.id, currency="USD", total_amount=Decimal("100"))
    make_budget(db, resource_id=project.id, currency="GBP", total_amount=Decimal("99999"), status="cancelled")
    invoice(db, usd, "50", "50")
    invoice(db, usd, "700", "300", status="voided")
    invoice(db, usd, "80", currency="EUR", status="voided")
    body = profitability(api, exec_user, project)
    assert money(body) == ("USD", 100.0, 50.0, 50.0)
    assert body["by_currency"] == [entry("USD", 100.0, 50.0, 50.0)]


def test_an_invoice_in_another_currency_than_its_budget_is_under_its_own(api, db, exec_user):
    """An invoice made before the rule "an invoice of a budget is in its budget's currency" (an AUD invoice of the USD
    budget, made in the database as test_budget_currency's old invoices are): its money is AUD, listed after the
    budgets' currencies, and not in the top-level USD figures."""
    project = make_project(db)
    usd = make_budget(db, resource_id=project.id, currency="USD", total_amount=Decimal("1000"))
    invoice(db, usd, "300", "100")
    invoice(db, usd, "440", "440", currency="AUD")
    body = profitability(api, exec_user, project)
    assert money(body) == ("USD", 1000.0, 300.0, 100.0)
    assert body["by_currency"] == [entry("USD", 1000.0, 300.0, 100.0), entry("AUD", 0.0, 440.0, 440.0)]
    # a currency only invoices are in comes after every budget's currency, even one of a zero budget
    make_budget(db, resource_id=project.id, currency="NZD", total_amount=Decimal("0"))
    assert [e["currency"] for e in profitability(api, exec_user, project)["by_currency"]] == ["USD", "NZD", "AUD"]


def test_a_project_without_budgets_has_no_currency(api, db, exec_user):
    project = make_project(db)
    body = profitability(api, exec_user, project)
    assert money(body) == (None, 0, 0, 0) and body["by_currency"] == []
    # only a cancelled budget, with an invoice that counts: no currency, zeros at the top, the invoice listed
    cancelled = make_budget(db, resource_id=project.id, currency="USD", total_amount=Decimal("10"), status="cancelled")
    invoice(db, cancelled, "10", "10")
    body = profitability(api, exec_user, project)
    assert money(body) == (None, 0, 0, 0)
    assert body["by_currency"] == [entry("USD", 0.0, 10.0, 10.0)]
