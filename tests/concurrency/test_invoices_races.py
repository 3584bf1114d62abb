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

