"""A hand link's history names every field it changed (session 25, history audit): a ledger id set by hand also
clears the stored ledger status (read again by the next sync), and that change was missing from the entry."""
from sqlalchemy import select

from chalicelib.core.history import HistoryEntry

from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice
from tests.areas.invoices.test_ledger_link import LEDGER_TOTALS, _link, _made_in_the_ledger


def test_a_hand_link_records_the_ledger_status_it_clears(api, db, exec_user):
    first, second = _made_in_the_ledger(db, "Acme Pty"), _made_in_the_ledger(db, "Acme Pty")
    ours = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, **LEDGER_TOTALS)
    assert _link(api, exec_user, ours, first).status == 200
    assert api.post(f"/api/invoices/{ours.id}/sync-ledger", as_=exec_user).json["ledger_status"] == "DRAFT"
    relinked = _link(api, exec_user, ours, second)
    assert relinked.status == 200, relinked.json
    assert relinked.json["invoice"]["ledger_status"] is None
    db.expire_all()
    entries = db.scalars(select(HistoryEntry).where(HistoryEntry.entity_id == ours.id, HistoryEntry.action == "updated")
                         .order_by(HistoryEntry.created_at, HistoryEntry.id)).all()
    assert entries[-1].changes == {"ledger_invoice_id": {"from": first, "to": second},
                                   "ledger_status": {"from": "DRAFT", "to": None}}
