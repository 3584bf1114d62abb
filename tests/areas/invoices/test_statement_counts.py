"""Invoices: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The invoice list and the detail's line items are tested in test_invoices.py."""
from datetime import date

from chalicelib.areas.invoices.models import InvoiceMappingRule, InvoicePayment
from chalicelib.core.locks import insert_rows
from tests.areas.config_lists.factories import make_item
from tests.factories import assert_constant, config_item

from .factories import make_invoice


def test_detail_payments(api, db, exec_user, count_queries):
    invoice = make_invoice(db, status="sent")
    made = []

    def grow(n):
        insert_rows(db, InvoicePayment, [{"invoice_id": invoice.id, "ledger_payment_id": f"p{len(made) + i}",
                                          "amount": 1, "date": date(2026, 3, 2), "status": "AUTHORISED"}
                                         for i in range(n)])
        made.extend(range(n))

    assert_constant(api, count_queries, exec_user, f"/api/invoices/{invoice.id}", grow, lambda b: len(b["payments"]))


def test_mapping_rules(api, db, exec_user, count_queries):
    from chalicelib.core.models import ConfigList
    from sqlalchemy import select

    service_types = db.scalar(select(ConfigList).where(ConfigList.key == "service_type"))
    existing = db.query(InvoiceMappingRule).count()
    design = config_item(db, "service_type", "design")
    assert design is not None

    def grow(n):
        items = [make_item(db, service_types) for _ in range(n)]
        insert_rows(db, InvoiceMappingRule, [{"service_type_id": item.id, "ledger_account_code": "200"}
                                             for item in items])

    body = assert_constant(api, count_queries, exec_user, "/api/invoices/mapping-rules", grow,
                           lambda b: len(b["rules"]) - existing)
    assert all(r["service_type_name"] for r in body["rules"])
