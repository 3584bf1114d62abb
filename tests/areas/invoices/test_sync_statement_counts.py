"""The ledger invoice sync (`sync_all`, the hourly job) writes a page of invoices in a fixed number of statements
whatever their number (docs/decisions.md, "Bulk writes": pg8000 runs an `executemany` row by row, so an UPDATE
per invoice would be one round trip per invoice). Counted as pg8000 sends them, at 3 and at 20 invoices."""
from __future__ import annotations

import uuid
from datetime import date, datetime, timezone
from decimal import Decimal

import pytest
from sqlalchemy import select

from chalicelib.core.models import HistoryEntry
from tests.areas.deals.factories import make_company

from .factories import make_invoice


def _ledger_invoices(db, company, size):
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice

    made = []
    for _ in range(size):
        ledger_id = str(uuid.uuid4())
        db.add(LedgerSandboxInvoice(id=ledger_id, invoice_number=f"L-{ledger_id[:8]}", contact_name="Acme Pty",
                                    status="AUTHORISED", currency="AUD", total=Decimal("110.00"),
                                    amount_paid=Decimal("0"), lines=[], payments=[], pdf=b"%PDF"))
        made.append(make_invoice(db, company_id=company.id, status="approved", ledger_invoice_id=ledger_id,
                                 total=Decimal("110.00"), due_date=date(2030, 1, 1)))
    db.flush()
    return made


def test_the_sync_costs_the_same_for_3_and_20_invoices(db, driver_statements, aws):
    from chalicelib.areas.invoices.jobs import ledger_invoice_sync

    company = make_company(db, name="Acme Pty")
    counts = []
    for size in (3, 20):
        _ledger_invoices(db, company, size)
        statements, answer = driver_statements(ledger_invoice_sync)
        assert answer["updated"] == size and answer["errors"] == [], answer
        counts.append(len(statements))
    assert counts[0] == counts[1], counts


def test_the_sync_writes_each_value_with_its_type(db, aws):
    """The one UPDATE of many invoices (and of many payments) writes what the per-row UPDATE wrote: money to the
    cent, the status and payment status, the sync time (`ledger_synced_at`, `updated_at` refreshed), one history
    entry per changed invoice; a payment's changed amount, date and reference (now none)."""
    from chalicelib.areas.invoices.jobs import ledger_invoice_sync
    from chalicelib.areas.invoices.models import InvoicePayment
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice
    from chalicelib.providers.ledger.sandbox import record_payment

    company = make_company(db, name="Acme Pty")
    part, whole, untouched = _ledger_invoices(db, company, 3)
    record_payment(db, part.ledger_invoice_id, "33.33", on=date(2026, 4, 2), reference="EFT 1")
    record_payment(db, part.ledger_invoice_id, "0.01", on=date(2026, 4, 3), reference="EFT 2")
    record_payment(db, whole.ledger_invoice_id, "110.00", on=date(2026, 4, 2), reference="EFT 3")
    stamps = {invoice.id: invoice.updated_at for invoice in (part, whole, untouched)}
    started = datetime.now(timezone.utc)
    assert ledger_invoice_sync()["updated"] == 3
    db.expire_all()
    values = {invoice.id: (invoice.status, invoice.payment_status, invoice.ledger_status, invoice.amount_paid,
                           invoice.amount_due) for invoice in (part, whole, untouched)}
    assert values == {part.id: ("approved", "partially_paid", "AUTHORISED", Decimal("33.34"), Decimal("76.66")),
                      whole.id: ("paid", "paid", "PAID", Decimal("110.00"), Decimal("0.00")),
                      untouched.id: ("approved", "unpaid", "AUTHORISED", Decimal("0.00"), Decimal("110.00"))}
    for invoice in (part, whole, untouched):
        assert invoice.ledger_synced_at.tzinfo is not None and invoice.ledger_synced_at >= started
        assert invoice.updated_at > stamps[invoice.id]
    synced = db.execute(select(HistoryEntry.entity_id, HistoryEntry.changes)
                        .where(HistoryEntry.action == "ledger_synced")).all()
    assert {entity_id: changes["amount_paid"]["to"] for entity_id, changes in synced if "amount_paid" in changes} == {
        part.id: 33.34, whole.id: 110.0}  # as history writes money (value_out)

    row = db.get(LedgerSandboxInvoice, part.ledger_invoice_id)
    first = next(p for p in row.payments if p["reference"] == "EFT 1")
    second = next(p for p in row.payments if p["reference"] == "EFT 2")
    row.payments = [{**first, "amount": "30.05", "date": "2026-04-05", "reference": None},
                    {**second, "amount": "3.29"}]
    db.flush()
    assert ledger_invoice_sync()["updated"] == 0  # the invoice's own values are the same
    db.expire_all()
    payments = db.execute(select(InvoicePayment.ledger_payment_id, InvoicePayment.amount, InvoicePayment.date,
                                 InvoicePayment.reference).where(InvoicePayment.invoice_id == part.id)).all()
    assert sorted(payments) == sorted([(first["ledger_payment_id"], Decimal("30.05"), date(2026, 4, 5), None),
                                       (second["ledger_payment_id"], Decimal("3.29"), date(2026, 4, 3), "EFT 2")])
