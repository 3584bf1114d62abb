"""Session 23: the sandbox ledger dates a payment on the organisation's day (Xero dates payments in the
organisation's time zone), not the server's UTC day: at 20:00 UTC on 1 December it is 2 December in Sydney."""
from datetime import date, datetime, timezone
from decimal import Decimal

from chalicelib.core.timeutil import org_today
from chalicelib.providers.ledger.models import LedgerSandboxInvoice
from chalicelib.providers.ledger.sandbox import record_payment


def test_a_payment_is_dated_on_the_organisations_day(db, set_env, org_clock):
    set_env(ORG_TIMEZONE="Australia/Sydney")
    org_clock(datetime(2026, 12, 1, 20, 0, tzinfo=timezone.utc))
    assert org_today() == date(2026, 12, 2)
    row = LedgerSandboxInvoice(id="inv-1", status="AUTHORISED", invoice_number="INV-1", contact_name="Acme",
                               currency="AUD", lines=[], total=Decimal("100"), amount_paid=Decimal("0"), payments=[],
                               pdf=b"%PDF")
    db.add(row)
    db.flush()
    payment = record_payment(db, "inv-1", "40")
    assert payment["date"] == "2026-12-02"
