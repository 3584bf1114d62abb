"""Session 29 (decisions documents against the code): invoices.

docs/decisions/invoices.md, "The accounting ledger": the ledger's send is allowed "from AUTHORISED or PAID", and "Local
status follows two ledger states: VOIDED -> `voided`, PAID -> `paid`". A paid invoice e-mailed again from the ledger
(a receipt, a copy for the client) was set to local `sent`: staff, the portal (status `sent`) and the local status
filter no longer read it as paid, though the ledger still said PAID, until the next sync wrote `paid` back (a
`ledger_synced` entry for a change nobody made). A send of an invoice the ledger holds as PAID now keeps it `paid`."""
from sqlalchemy import select

from chalicelib.areas.invoices.models import Invoice
from chalicelib.core.models import HistoryEntry
from chalicelib.providers.ledger.sandbox import record_payment
from tests.areas.invoices.test_ledger_reads_s26 import ledger_read_long_ago


def _post(api, user, invoice_id, move):
    answer = api.post(f"/api/invoices/{invoice_id}/{move}", as_=user)
    assert answer.status == 200, (move, answer)
    return answer.json


def test_a_paid_invoice_sent_again_from_the_ledger_stays_paid(api, db, exec_user, ready):
    for move in ("push-to-ledger", "ledger-approve"):
        _post(api, exec_user, ready.id, move)
    db.expire_all()
    record_payment(db, db.get(Invoice, ready.id).ledger_invoice_id, "1100.00")
    ledger_read_long_ago(db)
    synced = _post(api, exec_user, ready.id, "sync-ledger")
    assert (synced["invoice"]["status"], synced["ledger_status"], synced["payment_status"]) == ("paid", "PAID", "paid")

    sent = _post(api, exec_user, ready.id, "ledger-send")["invoice"]

    assert (sent["status"], sent["ledger_status"], sent["payment_status"]) == ("paid", "PAID", "paid")
    ledger_read_long_ago(db)
    again = _post(api, exec_user, ready.id, "sync-ledger")
    assert again["invoice"]["status"] == "paid"
    db.expire_all()
    entries = db.scalars(select(HistoryEntry.action).where(HistoryEntry.entity_id == ready.id)
                         .order_by(HistoryEntry.created_at, HistoryEntry.id)).all()
    assert entries[-1] == "ledger_sent"  # the sync after the send found nothing to change
