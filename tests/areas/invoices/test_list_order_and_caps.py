"""The list's order, the line item cap (docs/decisions/invoices.md: "newest issued first"; "at most 500 per
invoice (409 beyond)") and the bounds of a line's numbers (decisions.md section 4: a 400 names the field)."""
from datetime import date
from decimal import Decimal

from chalicelib.areas.invoices.models import InvoiceLineItem
from chalicelib.core.ids import new_id
from chalicelib.core.locks import insert_rows
from tests.areas.invoices.factories import make_invoice


def test_the_list_is_newest_issued_first(api, db, exec_user):
    older = make_invoice(db, issued_date=date(2026, 1, 5))
    newest = make_invoice(db, issued_date=date(2026, 3, 9))
    middle = make_invoice(db, issued_date=date(2026, 2, 1))
    listed = [i["id"] for i in api.get("/api/invoices", as_=exec_user).json["invoices"]]
    assert [i for i in listed if i in (older.id, newest.id, middle.id)] == [newest.id, middle.id, older.id]


def test_an_invoice_holds_at_most_500_line_items(api, db, exec_user):
    invoice = make_invoice(db)
    insert_rows(db, InvoiceLineItem, [{"id": new_id(), "invoice_id": invoice.id, "description": f"Line {n}",
                                       "quantity": Decimal("1"), "unit_price": Decimal("1"), "amount": Decimal("1"),
                                       "position": n} for n in range(499)])
    db.flush()
    path = f"/api/invoices/{invoice.id}/line-items"
    assert api.post(path, as_=exec_user, json={"description": "500th"}).status == 201
    refused = api.post(path, as_=exec_user, json={"description": "501st"})
    assert refused.status == 409 and "500" in refused.json["error"]
    assert len(api.get(f"/api/invoices/{invoice.id}", as_=exec_user).json["line_items"]) == 500


def test_a_number_too_large_for_its_column_is_a_400_naming_the_field(api, db, exec_user):
    """quantity is stored with 10 digits before the point, unit_price with 12: a larger value is refused by the
    request's validation (400 with details), not by the database (a 400 naming no field)."""
    invoice = make_invoice(db)
    path = f"/api/invoices/{invoice.id}/line-items"
    for field, value in (("quantity", "10000000000"), ("unit_price", "1000000000000"),
                         ("unit_price", "-1000000000000")):
        answer = api.post(path, as_=exec_user, json={"description": "x", field: value})
        assert answer.status == 400 and answer.json["details"][0]["field"] == field, (field, value, answer)
    item = api.post(path, as_=exec_user, json={"description": "x", "quantity": "9999999999.99",
                                               "unit_price": "1"})
    assert item.status == 201, item
    answer = api.put(f"{path}/{item.json['item']['id']}", as_=exec_user, json={"unit_price": "1000000000000"})
    assert answer.status == 400 and answer.json["details"][0]["field"] == "unit_price", answer
