"""Session 27 (replay27b): `invoice_overdue` once per unpaid spell, not once per due date for good.

The overdue scan marks an invoice it told (`overdue_noticed_for` = its due date). An invoice paid and then unpaid
again with the same due date (a bounced payment set back by hand, a payment the ledger reversed) is overdue again:
the mark is cleared when the invoice becomes paid (by hand, or by a ledger sync) and when it leaves paid, so the
next scan tells again (docs/decisions/invoices.md, session 27)."""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import update

from chalicelib.areas.invoices.models import Invoice
from tests.areas.invoices.test_ledger_reads_s26 import ledger_read_long_ago
from tests.areas.invoices.test_notices import _in_ledger, _overdue, _scan, out_of_window, set_status, told
from tests.areas.invoices.test_notices import team  # noqa: F401 - the fixture
from tests.factories import make_user


def test_an_invoice_paid_by_hand_then_set_back_to_sent_is_told_overdue_again(api, db, client, team):  # noqa: F811
    creator = make_user(db, access_level="executive")
    late = _overdue(db, team, creator, days=3)
    assert _scan(client) == {"overdue": 1, "notified": 3}
    out_of_window(db)
    set_status(api, team.boss, late.id, "paid")          # owner/delivery/creator told "Invoice paid"
    assert _scan(client) == {"overdue": 0, "notified": 0}  # paid: not overdue
    out_of_window(db)
    set_status(api, team.boss, late.id, "sent")          # the payment bounced: unpaid and overdue again
    out_of_window(db)
    assert [n["type"] for n in told(api, team.owner, "invoice_paid")] == ["invoice_paid"]
    assert _scan(client) == {"overdue": 1, "notified": 3}
    assert [n["type"] for n in told(api, team.owner, "invoice_overdue")] == ["invoice_overdue"] * 2
    out_of_window(db)
    assert _scan(client) == {"overdue": 0, "notified": 0}  # once per unpaid spell


def test_a_paid_invoice_marked_before_the_fix_is_told_again_once_it_leaves_paid(api, db, client, team):  # noqa: F811
    """An invoice told overdue and paid before session 27 keeps its mark while paid; set back to sent it is cleared."""
    creator = make_user(db, access_level="executive")
    late = _overdue(db, team, creator, days=3, status="paid")
    db.execute(update(Invoice).where(Invoice.id == late.id).values(overdue_noticed_for=late.due_date))
    db.flush()
    set_status(api, team.boss, late.id, "sent")
    assert _scan(client) == {"overdue": 1, "notified": 3}


def _ledger_row(db, invoice):
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice

    db.refresh(invoice)
    return db.get(LedgerSandboxInvoice, invoice.ledger_invoice_id)


def test_an_invoice_paid_in_the_ledger_then_reversed_there_is_told_overdue_again(api, db, client, team):  # noqa: F811
    """The ledger answers the invoice paid (its amount covered, still AUTHORISED there: the local status stays
    `approved`, the payment status becomes paid), then the payment is reversed in the ledger (unpaid again)."""
    creator = make_user(db, access_level="executive")
    late = _overdue(db, team, creator, days=3, total=Decimal("1100"), amount_paid=Decimal("0"),
                    amount_due=Decimal("1100"))
    _in_ledger(db, late)
    assert _scan(client) == {"overdue": 1, "notified": 3}
    out_of_window(db)
    row = _ledger_row(db, late)
    row.amount_paid = Decimal("1100")
    row.payments = [{"ledger_payment_id": "pay-1", "date": late.issued_date.isoformat(), "amount": "1100.00",
                     "reference": "EFT", "status": "AUTHORISED"}]
    db.flush()
    assert api.post("/api/invoices/sync-ledger", as_=team.boss).json["updated"] == 1
    db.expire_all()
    assert db.get(Invoice, late.id).payment_status == "paid"
    assert [n["type"] for n in told(api, team.owner, "invoice_paid")] == ["invoice_paid"]
    out_of_window(db)
    row = _ledger_row(db, late)
    row.amount_paid, row.payments = Decimal("0"), []   # the payment reversed in the ledger
    db.flush()
    ledger_read_long_ago(db)  # past the requested sync's cooldown (session 26)
    assert api.post("/api/invoices/sync-ledger", as_=team.boss).json["updated"] == 1
    db.expire_all()
    assert (db.get(Invoice, late.id).status, db.get(Invoice, late.id).payment_status) == ("approved", "unpaid")
    assert _scan(client) == {"overdue": 1, "notified": 3}
