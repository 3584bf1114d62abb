"""Fixtures of the invoices tests."""
from datetime import date
from decimal import Decimal

import pytest

from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item


@pytest.fixture
def ready(db):
    """An invoice of Acme with a line, not yet in the ledger."""
    invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, due_date=date(2026, 4, 1))
    make_invoice_item(db, invoice, description="Design", quantity=Decimal("2"), unit_price=Decimal("500"))
    invoice.subtotal, invoice.tax, invoice.total = Decimal("1000"), Decimal("100"), Decimal("1100")
    db.flush()
    return invoice
