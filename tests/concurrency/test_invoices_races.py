"""Races of the invoices area against a real HTTP server on Postgres (the server and helpers of
test_concurrency.py): deterministic, another transaction holds the invoice's row while the request runs."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import delete, update

from tests.concurrency.test_concurrency import _call, _token, executive, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_a_delete_or_line_change_that_waited_for_a_delete_is_a_404(live):
    """Two deletes of one invoice at once, or a line added while it is deleted: the request that waited finds the
    invoice gone and answers 404 (it answered 500: the lock's re-read found no row)."""
    from chalicelib.areas.invoices.models import Invoice
    from tests.areas.invoices.factories import make_invoice, make_invoice_item

    base, sessions = live
    user = executive(sessions)
    token = _token(user)
    with sessions() as db:
        invoices = [make_invoice(db) for _ in range(3)]
        make_invoice_item(db, invoices[2])
        db.commit()
    calls = [lambda i=invoices[0]: _call(base, "DELETE", f"/api/invoices/{i.id}", token),
             lambda i=invoices[1]: _call(base, "POST", f"/api/invoices/{i.id}/line-items", token,
                                         {"description": "Design", "quantity": 1, "unit_price": 100}),
             lambda i=invoices[2]: _call(base, "PUT", f"/api/invoices/{i.id}", token, {"notes": "late"})]
    for invoice, call in zip(invoices, calls):
        status, body = while_held(
            sessions, lambda other, i=invoice: other.execute(delete(Invoice).where(Invoice.id == i.id)), call)
        assert status == 404, body


def test_a_send_that_waited_for_a_void_leaves_the_invoice_voided(live):
    """A ledger send while the invoice is voided (the ledger e-mailed it, then voided it): the send finds the
    invoice voided once it has the row and answers 409, writing nothing; it used to set the voided invoice to
    `sent` (the ledger says VOIDED)."""
    from chalicelib.areas.invoices.models import Invoice
    from tests.areas.deals.factories import make_company
    from tests.areas.invoices.factories import make_invoice, make_invoice_item

    base, sessions = live
    user = executive(sessions)
    token = _token(user)
    with sessions() as db:
        invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, due_date=date(2026, 4, 1))
        make_invoice_item(db, invoice, description="Design", quantity=Decimal("2"), unit_price=Decimal("500"))
        db.commit()
    assert _call(base, "POST", f"/api/invoices/{invoice.id}/push-to-ledger", token)[0] == 200
    assert _call(base, "POST", f"/api/invoices/{invoice.id}/ledger-approve", token)[0] == 200
    status, body = while_held(
        sessions, lambda other: other.execute(update(Invoice).where(Invoice.id == invoice.id)
                                              .values(status="voided", ledger_status="VOIDED")),
        lambda: _call(base, "POST", f"/api/invoices/{invoice.id}/ledger-send", token))
    assert status == 409, body
    with sessions() as db:
        stored = db.get(Invoice, invoice.id)
        assert (stored.status, stored.ledger_status) == ("voided", "VOIDED")



# ---------------------------------------------------------------- a budget's currency change and its invoices
# docs/decisions/invoices.md, "Currency": the invoice's check reads the budget's currency with the budget's row held
# (FOR KEY SHARE), the budget's currency change locks it FOR UPDATE; they take turns, so a live invoice of a budget is
# never left in another currency than the budget's.

def _currency_change_in_progress(budget_id: str, currency: str):
    """Another transaction changing the budget's currency as budgets' update does (the row locked FOR UPDATE, then
    written), held until while_held commits it."""
    from sqlalchemy import select

    from chalicelib.areas.budgets.models import Budget

    def hold(other):
        other.execute(select(Budget.id).where(Budget.id == budget_id).with_for_update())
        other.execute(update(Budget).where(Budget.id == budget_id).values(currency=currency))
    return hold


def test_an_invoice_put_onto_a_budget_whose_currency_changes_meanwhile_reads_the_new_one(live):
    """An invoice moved onto (or made on) a budget while the budget's currency change is in progress waits for it and
    is checked against the new currency: the USD move is a 400 on budget_id, the create takes EUR. It read USD
    unlocked before, waited at the foreign key, and wrote a live USD invoice under the EUR budget."""
    from chalicelib.areas.invoices.models import Invoice
    from tests.areas.budgets.factories import make_budget
    from tests.areas.invoices.factories import make_invoice

    base, sessions = live
    token = _token(executive(sessions))
    with sessions() as db:
        budget, invoice = make_budget(db, currency="USD"), make_invoice(db, currency="USD")
        db.commit()
    status, body = while_held(sessions, _currency_change_in_progress(budget.id, "EUR"),
                              lambda: _call(base, "PUT", f"/api/invoices/{invoice.id}", token, {"budget_id": budget.id}))
    assert status == 400 and [d["field"] for d in body["details"]] == ["budget_id"], body
    with sessions() as db:
        assert (db.get(Invoice, invoice.id).budget_id, db.get(Invoice, invoice.id).currency) == (None, "USD")
    status, body = while_held(sessions, _currency_change_in_progress(budget.id, "GBP"),
                              lambda: _call(base, "POST", "/api/invoices", token, {"budget_id": budget.id}))
    assert status == 201 and body["invoice"]["currency"] == "GBP", body


def test_a_voided_invoice_set_back_while_its_budgets_currency_changes_is_refused(live):
    """The update taking an invoice out of `voided` reads its budget's currency held too: it waits for the change in
    progress and answers the 400 on status (it did not wait, nor check)."""
    from chalicelib.areas.invoices.models import Invoice
    from tests.areas.budgets.factories import make_budget
    from tests.areas.invoices.factories import make_invoice

    base, sessions = live
    token = _token(executive(sessions))
    with sessions() as db:
        budget = make_budget(db, currency="USD")
        invoice = make_invoice(db, currency="USD", budget_id=budget.id, status="voided")
        db.commit()
    status, body = while_held(sessions, _currency_change_in_progress(budget.id, "EUR"),
                              lambda: _call(base, "PUT", f"/api/invoices/{invoice.id}", token, {"status": "draft"}))
    assert status == 400 and [d["field"] for d in body["details"]] == ["status"], body
    with sessions() as db:
        assert db.get(Invoice, invoice.id).status == "voided"


def test_a_currency_change_waits_for_an_invoice_checked_against_the_budget(live):
    """The other way round: an invoice's transaction that read the budget's currency (held) and wrote a USD invoice
    on it; the budget's currency change waits for it, then counts that invoice: 409, the budget stays USD."""
    from sqlalchemy import select

    from chalicelib.areas.budgets.models import Budget
    from tests.areas.budgets.factories import make_budget
    from tests.areas.invoices.factories import make_invoice

    base, sessions = live
    token = _token(executive(sessions))
    with sessions() as db:
        budget = make_budget(db, currency="USD")
        db.commit()

    def invoice_in_progress(other):
        other.execute(select(Budget.currency).where(Budget.id == budget.id).with_for_update(read=True, key_share=True))
        make_invoice(other, currency="USD", budget_id=budget.id)

    status, body = while_held(sessions, invoice_in_progress,
                              lambda: _call(base, "PUT", f"/api/budgets/{budget.id}", token, {"currency": "EUR"}))
    assert status == 409, body
    with sessions() as db:
        assert db.get(Budget, budget.id).currency == "USD"


def test_currency_changes_and_invoice_moves_at_once_leave_no_invoice_in_another_money(live):
    """Both at once, for real (not deterministic: the order varies by round): two invoices moved onto a USD budget
    and its change to EUR, together. Whatever the order, every live invoice of the budget is in its currency, and the
    two invoices (one budget) never refused each other."""
    from chalicelib.areas.budgets.models import Budget
    from chalicelib.areas.invoices.models import Invoice
    from tests.areas.budgets.factories import make_budget
    from tests.areas.invoices.factories import make_invoice
    from tests.concurrency.test_concurrency import _all_at_once

    base, sessions = live
    token = _token(executive(sessions))
    for _ in range(8):
        with sessions() as db:
            budget = make_budget(db, currency="USD")
            invoices = [make_invoice(db, currency="USD") for _ in range(2)]
            db.commit()
        calls = [lambda i=i: _call(base, "PUT", f"/api/invoices/{i.id}", token, {"budget_id": budget.id})
                 for i in invoices]
        calls.append(lambda: _call(base, "PUT", f"/api/budgets/{budget.id}", token, {"currency": "EUR"}))
        results = _all_at_once(calls)
        moves, change = [status for status, _ in results[:2]], results[2][0]
        assert set(moves) <= {200, 400} and change in (200, 409), results
        assert len(set(moves)) == 1, results  # the two moves fared alike: both before the change, or both after
        assert (change == 200) == (moves[0] == 400), results
        with sessions() as db:
            currency = db.get(Budget, budget.id).currency
            live_on_it = {i.currency for i in db.query(Invoice).filter(Invoice.budget_id == budget.id,
                                                                      Invoice.status != "voided")}
            assert live_on_it <= {currency}, (currency, live_on_it, results)
