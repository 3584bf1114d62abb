"""The money of invoices (money audit): line amounts in cents and the tax of each line, as the ledger (Xero) computes
them, totals that are the sum of the lines as answered, amounts too large for the invoice refused with a 400, and a
generated invoice in its budget's currency."""
from decimal import Decimal

from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.invoices.factories import make_invoice


def lines_path(invoice):
    return f"/api/invoices/{invoice.id}/line-items"


def add(api, user, invoice, **body):
    return api.post(lines_path(invoice), as_=user, json={"description": "Work", **body})


def totals(api, user, invoice):
    found = api.get(f"/api/invoices/{invoice.id}", as_=user).json
    return found["invoice"], [line["amount"] for line in found["line_items"]]


def test_line_amounts_and_their_tax_are_rounded_per_line_as_the_ledger_does(api, db, exec_user):
    """Xero rounds each line's amount to the cent and computes GST on each line, rounded, then sums them. Three
    lines of 0.5 x 0.09 (0.045 each) were kept as 0.045, summed to 0.135 and rounded: subtotal 0.14, tax 0.01;
    the ledger bills 0.05 x 3 = 0.15 and 0.01 x 3 = 0.03 of tax (0.005 each, half up)."""
    invoice = make_invoice(db)
    for _ in range(3):
        made = add(api, exec_user, invoice, quantity="0.5", unit_price="0.09")
        assert made.status == 201 and made.json["item"]["amount"] == 0.05, made
    found, amounts = totals(api, exec_user, invoice)
    assert amounts == [0.05, 0.05, 0.05]
    assert (found["subtotal"], found["tax"], found["total"]) == (0.15, 0.03, 0.18)
    assert found["amount_due"] == 0.18


def test_the_totals_follow_every_line_change(api, db, exec_user):
    """After an edit and a removal the totals are still the sum of the lines answered (3 x 33.33 is 99.99)."""
    invoice = make_invoice(db)
    ids = [add(api, exec_user, invoice, quantity="1", unit_price="33.33").json["item"]["id"] for _ in range(3)]
    found, amounts = totals(api, exec_user, invoice)
    assert (found["subtotal"], found["tax"], found["total"]) == (99.99, 9.99, 109.98)  # 3.333 -> 3.33 a line
    edited = api.put(f"{lines_path(invoice)}/{ids[0]}", as_=exec_user, json={"quantity": "0.33"})
    assert edited.json["item"]["amount"] == 11.0  # 10.9989
    assert api.delete(f"{lines_path(invoice)}/{ids[1]}", as_=exec_user).status == 200
    found, amounts = totals(api, exec_user, invoice)
    assert amounts == [11.0, 33.33]
    assert (found["subtotal"], found["tax"], found["total"]) == (44.33, 4.43, 48.76)  # 1.10 + 3.33 (3.333)


def test_an_amount_the_invoice_cannot_hold_is_a_400(api, db, exec_user):
    """Each quantity and unit price fits its column, but their product summed into the invoice's totals
    (Numeric(16, 2)) overflowed: a 500 from the database. 400 naming the line's fields; nothing written."""
    invoice = make_invoice(db)
    too_big = add(api, exec_user, invoice, quantity="999999999", unit_price="999999999")
    assert too_big.status == 400, too_big
    assert {d["field"] for d in too_big.json["details"]} == {"quantity", "unit_price"}
    made = add(api, exec_user, invoice, quantity=1, unit_price="90000000000")
    assert made.status == 201, made
    second = add(api, exec_user, invoice, quantity=1, unit_price="900000000000")  # 9.9e11 + tax fits; summed no
    assert second.status == 201, second
    for _ in range(100):
        last = add(api, exec_user, invoice, quantity=1, unit_price="999999999999.99")
        if last.status != 201:
            break
    assert last.status == 400, last
    raised = api.put(f"{lines_path(invoice)}/{made.json['item']['id']}", as_=exec_user,
                     json={"quantity": "9999999999"})
    assert raised.status == 400, raised
    found, amounts = totals(api, exec_user, invoice)
    assert found["total"] < 1e14
    assert Decimal(str(found["subtotal"])) == sum((Decimal(str(amount)) for amount in amounts), Decimal("0"))


def test_a_generated_invoice_is_in_its_budgets_currency(api, db, exec_user):
    """Generation copies the budget's amounts: a USD budget generated as a GBP invoice billed 1000 GBP for 1000 USD
    of work. A currency other than the budget's is a 400 naming `currency` (as for a hand-made invoice of a budget,
    test_budget_currency.py); nothing is made."""
    budget = make_budget(db, currency="USD", budget_type="sprints")
    make_line_item(db, budget, description="Sprint 1", quantity=Decimal("1"), unit_price=Decimal("1000"))
    refused = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id, "currency": "GBP",
                                                              "generate_from_budget": True})
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == ["currency"]
    assert api.get(f"/api/invoices?budget_id={budget.id}", as_=exec_user).json["invoices"] == []
    same = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id, "currency": "usd",
                                                           "generate_from_budget": True})
    assert same.status == 201 and same.json["invoice"]["currency"] == "USD", same
    generated = same.json["invoice"]["id"]
    # its currency cannot be relabelled afterwards either: the amounts are the budget's USD (the budget's 400 answers
    # before the 409 of an invoice with lines: removing the lines would not allow GBP; test_budget_currency.py)
    moved = api.put(f"/api/invoices/{generated}", as_=exec_user, json={"currency": "GBP"})
    assert moved.status == 400 and [d["field"] for d in moved.json["details"]] == ["currency"], moved


def test_the_sandbox_ledger_bills_what_the_invoice_says(api, db, exec_user):
    """The sandbox ledger rounds as Xero does (each line to the cent, GST on each line): a pushed invoice's ledger
    total is the invoice's own, also where rounding the sum would have given a cent less (session 18)."""
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice
    from tests.areas.deals.factories import make_company

    invoice = make_invoice(db, company_id=make_company(db, name="Cents Pty").id)
    for _ in range(3):
        assert add(api, exec_user, invoice, quantity="0.5", unit_price="0.09").status == 201
    pushed = api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=exec_user)
    assert pushed.status == 200, pushed
    ledger = db.get(LedgerSandboxInvoice, pushed.json["ledger_invoice_id"])
    assert ledger.total == Decimal("0.18") == Decimal(str(pushed.json["invoice"]["total"]))


def test_a_gst_free_line_carries_no_tax_here_or_in_the_ledger(api, db, exec_user):
    """A line of a GST-free tax type (an export: EXEMPTEXPORT) carries no GST, as the ledger charges none; before,
    10% was added to it here while Xero billed it without (session 18)."""
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice
    from tests.areas.deals.factories import make_company

    invoice = make_invoice(db, company_id=make_company(db, name="Overseas Inc").id)
    assert add(api, exec_user, invoice, quantity=1, unit_price="100", tax_type="EXEMPTEXPORT").status == 201
    assert add(api, exec_user, invoice, quantity=1, unit_price="50").status == 201
    found, _ = totals(api, exec_user, invoice)
    assert (found["subtotal"], found["tax"], found["total"]) == (150.0, 5.0, 155.0)
    pushed = api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=exec_user)
    assert pushed.status == 200, pushed
    assert db.get(LedgerSandboxInvoice, pushed.json["ledger_invoice_id"]).total == Decimal("155.00")
