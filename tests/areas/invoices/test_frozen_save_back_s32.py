"""A line of an issued invoice saved back as read (session 32; the parity audit): the lines of an approved, sent,
paid or voided invoice do not change (409), but a PUT of a line with the values it holds changes nothing and passes,
as budgets' lines do (it was a 409 for a form saving the row it read)."""
from decimal import Decimal

import pytest

from chalicelib.areas.invoices.models import InvoiceLineItem
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item


@pytest.mark.parametrize("status", ["approved", "paid"])
def test_a_line_saved_back_unchanged_on_a_frozen_invoice_passes(api, db, exec_user, status):
    invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id)
    line = make_invoice_item(db, invoice)
    path = f"/api/invoices/{invoice.id}"
    read = next(item for item in api.get(path, as_=exec_user).json["line_items"] if item["id"] == line.id)
    assert api.put(path, as_=exec_user, json={"status": status}).status == 200
    sent_back = {key: read[key] for key in ("description", "quantity", "unit_price", "service_type_id", "position")}
    saved = api.put(f"{path}/line-items/{line.id}", as_=exec_user, json=sent_back)
    assert saved.status == 200, saved.json
    changed = api.put(f"{path}/line-items/{line.id}", as_=exec_user, json={**sent_back, "unit_price": 5000})
    assert changed.status == 409 and "draft" in changed.json["error"], changed.json
    db.expire_all()
    assert db.get(InvoiceLineItem, line.id).unit_price == Decimal("100")
