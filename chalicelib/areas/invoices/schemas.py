"""Request and read models of invoices (unknown fields are ignored; an unknown status is a 400)."""
from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Optional

from pydantic import Field, StringConstraints

from chalicelib.core.schemas import (CalendarDate, Flag, Flag01, Id, Input, IsoDate, IsoTimestamp, Money, PageQuery,
                                     Read, Text)
from chalicelib.core.schemas import choice

InvoiceStatus = choice("draft", "finalised", "approved", "sent", "paid", "voided")
Currency = Annotated[str, StringConstraints(strip_whitespace=True, to_upper=True, pattern=r"^[A-Za-z]{3}$")]
InvoiceNumber = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50)]
Code = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50)]
OptionalCode = Annotated[str, StringConstraints(strip_whitespace=True, max_length=50)]
# a ledger account code: Xero's Account.Code is at most 10 characters ("e.g 200 or SALES", its accounting API's
# document); a longer one was taken here and refused by Xero at every push (session 28's provider-limits audit)
AccountCode = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=10)]
OptionalAccountCode = Annotated[str, StringConstraints(strip_whitespace=True, max_length=10)]
LedgerId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
Description = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
# The column is Numeric(12, 2): 10 digits before the point (core Money holds 12), so that a larger value is a 400
# naming its field, not the database's refusal.
Quantity = Annotated[Money, Field(ge=0, max_digits=12, lt=Decimal("1e10"))]
Position = Annotated[int, Field(ge=0, le=1_000_000, strict=True)]
Notes = Text(20000)


class InvoiceCreate(Input):
    NOT_NULL = frozenset({"currency", "issued_date", "generate_from_budget", "invoice_number"})

    budget_id: Optional[Id] = None
    invoice_number: Optional[InvoiceNumber] = None
    currency: Currency = "AUD"
    due_date: CalendarDate = None
    issued_date: CalendarDate = None
    notes: Optional[Notes] = None
    company_id: Optional[Id] = None
    contact_id: Optional[Id] = None
    generate_from_budget: Flag = False


class InvoiceUpdate(Input):
    NOT_NULL = frozenset({"invoice_number", "status", "currency", "issued_date"})

    invoice_number: Optional[InvoiceNumber] = None
    status: Optional[InvoiceStatus] = None
    currency: Optional[Currency] = None
    due_date: CalendarDate = None
    issued_date: CalendarDate = None
    notes: Optional[Notes] = None
    company_id: Optional[Id] = None
    contact_id: Optional[Id] = None
    budget_id: Optional[Id] = None
    ledger_invoice_id: Optional[LedgerId] = None


class InvoiceListQuery(PageQuery):
    status: Optional[InvoiceStatus] = None
    company_id: Optional[Id] = None
    budget_id: Optional[Id] = None
    project_id: Optional[Id] = None
    deal_id: Optional[Id] = None


class InvoiceLineItemCreate(Input):
    NOT_NULL = frozenset({"description", "quantity", "unit_price", "position"})

    description: Description
    quantity: Quantity = Decimal("1")
    unit_price: Money = Decimal("0")
    service_type_id: Optional[Id] = None
    ledger_account_code: Optional[OptionalAccountCode] = None
    tax_type: Optional[OptionalCode] = None
    position: Optional[Position] = None


class InvoiceLineItemUpdate(InvoiceLineItemCreate):
    description: Optional[Description] = None
    quantity: Optional[Quantity] = None
    unit_price: Optional[Money] = None


class InvoiceLineItemReorder(Input):
    item_ids: Annotated[list[Id], Field(min_length=1, max_length=500)]


class MappingRuleUpsert(Input):
    NOT_NULL = frozenset({"ledger_account_code"})

    ledger_account_code: AccountCode
    description: Optional[Text(2000)] = None


# --- read models ----------------------------------------------------------------------------------

class InvoiceRead(Read):
    id: str
    invoice_number: str
    status: str
    currency: str
    due_date: IsoDate | None
    issued_date: IsoDate
    notes: str | None
    company_id: str | None
    contact_id: str | None
    budget_id: str | None
    ledger_invoice_id: str | None
    subtotal: float
    tax: float = Field(description="each line's 10% GST rounded half up to the cent (none on a GST-free tax type), summed")
    total: float
    amount_paid: float
    amount_due: float | None
    payment_status: str | None = Field(description="unpaid, partially_paid or paid; set by ledger sync")
    ledger_status: str | None
    ledger_synced_at: IsoTimestamp | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    company_name: str | None
    contact_name: str | None
    budget_name: str | None


class InvoiceDetailRead(InvoiceRead):
    project_id: str | None
    project_name: str | None
    po_number: str | None
    ledger_url: str | None


class InvoiceLineItemRead(Read):
    id: str
    invoice_id: str
    description: str
    quantity: float
    unit_price: float
    amount: float
    service_type_id: str | None
    ledger_account_code: str | None
    tax_type: str | None
    position: int
    budget_line_item_id: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    service_type_name: str | None


class InvoicePaymentRead(Read):
    id: str
    invoice_id: str
    ledger_payment_id: str
    amount: float
    date: IsoDate | None
    reference: str | None
    status: str | None
    created_at: IsoTimestamp


class InvoiceDetail(Read):
    invoice: InvoiceDetailRead
    line_items: list[InvoiceLineItemRead]
    payments: list[InvoicePaymentRead]


class MappingRuleRead(Read):
    id: str = Field(description="the service type's id")
    service_type_id: str
    ledger_account_code: str
    description: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    service_type_name: str | None


class LedgerPushRead(Read):
    invoice: InvoiceRead
    ledger_invoice_id: str


class InvoiceSyncRead(Read):
    invoice: InvoiceRead
    payments: list[InvoicePaymentRead]
    ledger_status: str | None
    payment_status: str | None


class InvoiceSyncErrorRead(Read):
    invoice_id: str | None = Field(description="null when the ledger itself could not be read")
    invoice_number: str | None
    error: str


class InvoiceBatchSyncRead(Read):
    updated: int
    errors: list[InvoiceSyncErrorRead]
    synced_at: IsoTimestamp
    more: Optional[Flag01] = Field(None, description="present (1) when the request stopped starting ledger calls "
                                                     "after its time: call again for the invoices it did not reach "
                                                     "(they come first)")
